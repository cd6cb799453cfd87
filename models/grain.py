"""What places a table's rows in time, and a model's SQL narrowed to a window of days.

A table declares its grain in its header, next to `@table`:

    -- @grain day: hour                     a row belongs to the UTC day of `hour`
    -- @grain month: month                  a row belongs to a month (`month`: its first day)
    -- @grain run: run_id                   a row belongs to a run, rebuilt when a day it held
                                            accelerators is (the run's days: runs_touching.sql)
    -- @grain day: usage_start .. usage_end a raw row covering a span belongs to every day of it
    -- @grain day (read whole): a .. b      as above, but models read the table whole (a small
                                            dimension: which days a change touches, nothing more)
    -- @grain run (onward t): run_id        a model that reads table t whole, a row of it on a day
                                            bearing on later days (a node's latest probe): a
                                            change of t on a day rebuilds from that day on

A table without one is a whole table: rebuilt, or read, whole.

A day- or month-grained model is rebuilt for a window of days [lo, hi) (a month-grained one
for whole months) by running its own SQL with every grained table it reads narrowed to the rows
of the window (`narrowed`), and keeping the rows it yields that fall in the window. That is
exact when a row of the window depends only on rows of the window: which is what the test that
compares an incremental warehouse with a full build (tests/warehouse/test_incremental.py)
holds every model to.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

GRAINS = ("day", "month", "run")
# The parameters a narrowed statement binds: the window's first day, the day after its last,
# and (run grain) the runs it rebuilds.
LO, HI, RUNS = "window_lo", "window_hi", "window_runs"

# The newest day any write has recorded as changed: how far an open span reaches.
NEWEST_DAY = "SELECT max(day) FROM bookkeeping.changes"
_SPAN = re.compile(r"^(.+?)\s*\.\.\s*(.+)$")
# Words that may follow a table's name and are not its alias.
_NOT_ALIAS = (
    "where|join|left|right|inner|full|outer|cross|natural|positional|asof|anti|semi|on|using|"
    "group|order|union|intersect|except|limit|qualify|window|having|offset|lateral|tablesample"
)
_READ = re.compile(
    r"\b(FROM|JOIN)(\s+)([a-z_][a-z0-9_]*)\b(?!\s*[.(])"
    rf"(\s+AS\b|\s+(?!(?:{_NOT_ALIAS})\b)[a-z_]\w*)?",
    re.IGNORECASE,
)


class GrainError(ValueError):
    """A `-- @grain` line that does not say what it should."""


@dataclass(frozen=True)
class Grain:
    kind: str  # day, month or run
    start: str  # the column (or expression) that places a row; a run's id for run grain
    end: str | None = None  # a row covering a span: where it ends (exclusive; null: still open)
    read_whole: bool = False  # models read it whole (a dimension)
    onward: tuple[str, ...] = ()  # tables it reads whole, a change rebuilding from its day on

    def filter(self, runs_from: str | None = None) -> str:
        """The condition that keeps a row of the window [$window_lo, $window_hi) (a month's
        row when its month starts in the window's month or later; a run's, its run listed in
        $window_runs, or in the `run_id` column of table `runs_from`)."""
        if self.kind == "run":
            if runs_from is not None:
                return f"{self.start} IN (SELECT run_id FROM {runs_from})"
            return f"list_contains(CAST(${RUNS} AS VARCHAR[]), {self.start})"
        lo = f"${LO}" if self.kind == "day" else f"CAST(date_trunc('month', ${LO}) AS DATE)"
        if self.end is None:
            day = f"CAST({self.start} AS DATE)"
            return f"{day} >= {lo} AND {day} < ${HI}"
        lo_ts, hi_ts = f"CAST({lo} AS TIMESTAMP)", f"CAST(${HI} AS TIMESTAMP)"
        return (
            f"{self.start} < {hi_ts} AND ({self.end} IS NULL OR {self.end} > {lo_ts} "
            f"OR {self.start} >= {lo_ts})"
        )

    def days_sql(self, rows: str) -> str:
        """The UTC days the rows of `rows` (a table or a parenthesised SELECT) belong to, as
        `SELECT DISTINCT day`: a span's every day (its end exclusive; an open one, a run still
        running, to the newest day any table has changed on: later days are recorded as changed
        when their own rows come), a point's one."""
        if self.kind != "day":
            raise GrainError("only a day grain places rows on days")
        if self.end is None:
            return f"SELECT DISTINCT CAST({self.start} AS DATE) AS day FROM {rows} WHERE {self.start} IS NOT NULL"
        last = (
            f"greatest(CAST({self.start} AS DATE), coalesce(CAST({self.end} - INTERVAL 1 MICROSECOND "
            f"AS DATE), ({NEWEST_DAY})))"
        )
        return (
            "SELECT DISTINCT CAST(day AS DATE) AS day FROM (SELECT unnest(generate_series("
            f"CAST({self.start} AS DATE), {last}, INTERVAL 1 DAY)) AS day FROM {rows} "
            f"WHERE {self.start} IS NOT NULL)"
        )


def parse_grain(where: str, kind: str, flags: str, text: str) -> Grain:
    """`-- @grain kind (flags): text` as a Grain; anything else is refused, naming `where`."""
    if kind not in GRAINS:
        raise GrainError(f"{where}: a grain is one of {', '.join(GRAINS)}, not {kind!r}")
    words = {w.strip() for w in flags.split(",") if w.strip()}
    onward = tuple(sorted(w.split()[1] for w in words if re.fullmatch(r"onward \w+", w)))
    unknown = {w for w in words if w != "read whole" and not re.fullmatch(r"onward \w+", w)}
    if unknown:
        raise GrainError(f"{where}: unknown grain flags {sorted(unknown)}")
    span = _SPAN.match(text.strip())
    start, end = (span.group(1), span.group(2)) if span else (text.strip(), None)
    if not start or (kind != "day" and end is not None):
        raise GrainError(f"{where}: '-- @grain {kind}: column' (a span is for day grain)")
    return Grain(kind, start, end, "read whole" in words, onward)


def narrowed(sql: str, reads: dict[str, Grain], whole: Iterable[str] = ()) -> str:
    """`sql` with every read of a table in `reads` replaced by the rows of the window:
    `FROM t AS x` becomes `FROM (SELECT * FROM t WHERE <t's filter>) AS x`."""

    def inline(match: re.Match[str]) -> str:
        keyword, space, name, alias = match.groups()
        grain = reads.get(name)
        if grain is None or grain.read_whole or grain.kind == "run" or name in skip:
            return match.group(0)
        sub = f"(SELECT * FROM {name} WHERE {grain.filter()})"
        return f"{keyword}{space}{sub}{alias if alias else f' AS {name}'}"

    skip = set(whole)
    return _READ.sub(inline, sql)


def whole_months(days: Iterable[date]) -> tuple[date, ...]:
    """Every day of each month one of `days` falls in."""
    found: set[date] = set()
    for month in {d.replace(day=1) for d in days}:
        day = month
        while day.month == month.month:
            found.add(day)
            day += timedelta(days=1)
    return tuple(sorted(found))
