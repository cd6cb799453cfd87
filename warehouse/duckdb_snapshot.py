"""Publishing the DuckDB snapshot: what changed since it was last published, not the whole file.

Two files take turns, `<stem>.snapshot-a.duckdb` and `<stem>.snapshot-b.duckdb`. The name
readers open, `<stem>.snapshot.duckdb`, is a hard link to one of them (the current one),
swapped by making a link under a temporary name and renaming it over the name (`os.replace`:
atomic). A publish writes only the other file, so a reader opening the name always opens a
whole, finished file, and one that has the current file open keeps reading it.

Each file holds `bookkeeping.snapshot_of`: the live file's newest change (bookkeeping.changes'
seq) it reflects. A publish holds the live file's write lock throughout (no writer slips in, and
two publishes never interleave), ATTACHes the other file and, in one transaction, brings it from
its seq to live's: each table changed since (a row of bookkeeping.changes with a greater seq)
has its changed days deleted and inserted again from live when it is day- or month-grained on a
column (`-- @grain day: col`), else is replaced whole; tables gone from live are dropped, new
ones made (live's DDL, then its rows), a table whose columns changed made again; comments follow
live's; the bookkeeping tables are copied whole (a row per table and day changed, however large
the fleet). Then the new seq, COMMIT, CHECKPOINT, DETACH, and the link is swapped.

The other file is copied whole instead, the old way (the checkpointed live file copied to a
fresh file, stamped, renamed over the other file: a reader that has it open keeps the old
inode), where applying the changes could be wrong or cost more: the file is missing or records
no seq; another process has it open (a reader on it since two publishes ago: DuckDB's lock
refuses the write) or a reader of this process has (duckdb_reader.open_here: the lock does not
keep those out); the live file records no changes, is behind the file, was rebuilt since (other
changes under the same numbers) or no longer holds the changes after its seq; the two differ in
macros or views; the file has grown past twice the live file (deleted rows leave free blocks
behind); or over half the rows would be written. `Published` says which, and why.

A publish of changes sees only what the bookkeeping records: every write through the warehouse
does (warehouse/duckdb.py; a statement run through `execute` records the tables it names, or
ANY_TABLE), a write to the file behind its back does not. A rewrite that changes only a
wall-clock column (WALL_CLOCK_COLUMNS) records nothing for a day-grained table, so the snapshot
keeps those rows' earlier stamp until it is next copied whole.
"""

from __future__ import annotations

import os
import shutil
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

import duckdb
from flopledger import models
from flopledger.warehouse.base import Published
from flopledger.warehouse.duckdb_lock import as_locked
from flopledger.warehouse.duckdb_reader import open_here

SLOTS = ("a", "b")
TARGET = "flopledger_publish"  # the other file's name while it is attached
BOOKS = models.BOOKKEEPING_SCHEMA
CHANGES = "changes"  # the bookkeeping's change log (models/bookkeeping/changes.sql)
# bookkeeping.snapshot_of: one row, the live seq the file reflects and the live file's mark at
# that seq (`_mark`: a live file rebuilt since has other changes under the same numbers)
STAMP = "snapshot_of"
STAMP_DDL = (
    f"CREATE TABLE IF NOT EXISTS {TARGET}.{BOOKS}.{STAMP} "
    "(seq BIGINT NOT NULL, live_mark VARCHAR NOT NULL, published_at TIMESTAMP NOT NULL)"
)

Table = tuple[str, str]  # (schema, table)
# bookkeeping.changes' name for a change to any table (a statement whose writes could not be
# told, recorded by DuckDBWarehouse.execute): the next publish of each file copies it whole.
ANY_TABLE = "*"


class _Whole(Exception):
    """Why the other file is copied whole rather than brought up to date."""


def slots(snapshot: Path) -> tuple[Path, Path]:
    """The two files the published name takes turns linking to."""
    a, b = (snapshot.with_name(f"{snapshot.stem}-{s}{snapshot.suffix}") for s in SLOTS)
    return a, b


def other_file(snapshot: Path) -> Path:
    """The file a publish writes: the one the published name is not a link to."""
    a, b = slots(snapshot)
    with suppress(FileNotFoundError):
        if os.path.samefile(a, snapshot):
            return b
    return a


def publish(con: duckdb.DuckDBPyConnection, live: Path, snapshot: Path) -> Published:
    """Bring the other file up to date (or copy the live file into it) and swap the published
    name to it. `con` is a write connection to `live`, held for the whole publish."""
    target = other_file(snapshot)
    try:
        applied = _apply_changes(con, live, target)
    except _Whole as why:
        _copy_whole(con, live, target)
        published = Published(str(snapshot), "full copy", str(why))
    else:
        published = Published(str(snapshot), "changes", "", applied)
    _swap(target, snapshot)
    return published


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _live_seq(con: duckdb.DuckDBPyConnection, db: str) -> int | None:
    """The live file's newest change; None when it keeps no bookkeeping."""
    found = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = ? AND schema_name = ? "
        "AND table_name IN ('changes', 'builds')",
        [db, BOOKS],
    ).fetchone()
    if not found or found[0] < 2:
        return None
    return int(con.execute(models.query_sql("bookkeeping_seq")).fetchone()[0])  # type: ignore[index]


def _apply_changes(con: duckdb.DuckDBPyConnection, live: Path, target: Path) -> tuple[str, ...]:
    if not target.exists():
        raise _Whole(f"{target.name} does not exist yet")
    if open_here(target):
        raise _Whole(f"a reader in this process has {target.name} open")
    if target.stat().st_size > 2 * live.stat().st_size:
        raise _Whole(f"{target.name} has grown past twice the live file")
    db = str(con.execute("SELECT current_database()").fetchone()[0])  # type: ignore[index]
    now = _live_seq(con, db)
    if now is None:
        raise _Whole("the live file records no changes")
    _attach(con, target)
    try:
        plan = _plan(con, db, now)
        _write(con, db, plan, now)
        con.execute(f"CHECKPOINT {TARGET}")
    except duckdb.Error as exc:  # the other file, unpublished, is copied whole instead
        raise _Whole(f"applying the changes failed: {_first_line(exc)}") from exc
    finally:
        con.execute(f"USE {_q(db)}")
        con.execute(f"DETACH DATABASE IF EXISTS {TARGET}")
    return plan.applied


def _attach(con: duckdb.DuckDBPyConnection, target: Path) -> None:
    con.execute(f"DETACH DATABASE IF EXISTS {TARGET}")
    try:
        con.execute(f"ATTACH {_literal(str(target))} AS {TARGET}")
    except duckdb.Error as exc:
        locked = as_locked(exc, target)
        if locked is not None:
            holder = f"process {locked.pid}" if locked.pid is not None else "another process"
            raise _Whole(f"{holder} has {target.name} open") from None
        raise _Whole(f"{target.name} cannot be opened: {_first_line(exc)}") from None


@dataclass
class _Plan:
    """What bringing the other file up to date writes."""

    dropped: list[Table] = field(default_factory=list)
    made: list[Table] = field(default_factory=list)  # new in live, or their columns changed
    new: list[Table] = field(default_factory=list)  # those of them new in live
    whole: list[Table] = field(default_factory=list)
    by_day: dict[Table, tuple[str, list[date]]] = field(default_factory=dict)  # column, days
    # The change log, appended to: its rows after the other file's seq (those up to it are the
    # same in both, as the mark says), never the whole log of history.
    appended: list[Table] = field(default_factory=list)
    since: int = 0
    commented: list[Table] = field(default_factory=list)
    schemas: list[str] = field(default_factory=list)

    @property
    def applied(self) -> tuple[str, ...]:
        def name(t: Table) -> str:
            return t[1] if t[0] == "main" else f"{t[0]}.{t[1]}"

        lines = [f"{name(t)}: dropped" for t in self.dropped if t[0] != BOOKS]
        lines += [
            f"{name(t)}: {'created' if t in self.new else 'remade'}"
            for t in self.made
            if t[0] != BOOKS
        ]
        lines += [f"{name(t)}: whole" for t in self.whole if t[0] != BOOKS]
        lines += [f"{name(t)}: {days_text(days)}" for t, (_, days) in self.by_day.items()]
        return tuple(sorted(lines))


def days_text(days: list[date]) -> str:
    """Sorted days as text, each run of consecutive days as its first .. its last."""
    runs: list[list[date]] = []
    for day in days:
        if runs and day - runs[-1][-1] == timedelta(days=1):
            runs[-1].append(day)
        else:
            runs.append([day])
    return ", ".join(
        r[0].isoformat() if len(r) == 1 else f"{r[0].isoformat()} .. {r[-1].isoformat()}"
        for r in runs
    )


def _plan(con: duckdb.DuckDBPyConnection, db: str, now: int) -> _Plan:
    stamped = _stamped(con)
    if stamped is None:
        raise _Whole("it records no published change")
    since, mark = stamped
    if since > now:
        raise _Whole("it is ahead of the live file (restored or rebuilt since)")
    if _mark(con, db, since) != mark:
        raise _Whole("the live file was rebuilt since: other changes under its numbers")
    oldest = con.execute(f"SELECT min(seq) FROM {_q(db)}.{BOOKS}.changes").fetchone()
    if since < now and oldest and oldest[0] is not None and oldest[0] > since + 1:
        raise _Whole("the live file no longer holds every change since it")
    if _definitions(con, db) != _definitions(con, TARGET):
        raise _Whole("its macros or views differ from the live file's")
    have, want = _tables(con, TARGET), _tables(con, db)
    have.pop((BOOKS, STAMP), None)
    plan = _Plan(
        dropped=sorted(set(have) - set(want)),
        made=sorted(t for t in want if t not in have or have[t][0] != want[t][0]),
        new=sorted(set(want) - set(have)),
        schemas=sorted({s for s, _ in want} - {s for s, _ in have} - {BOOKS}),
        since=since,
    )
    changed = _changes(con, db, since)
    if ANY_TABLE in changed:
        raise _Whole("a statement changed tables it does not name")
    for table in sorted(want):
        if table in plan.made:
            continue
        if table == (BOOKS, CHANGES):
            plan.appended.append(table)
        elif table[0] == BOOKS:
            plan.whole.append(table)
        elif table[1] in changed:
            _place(plan, table, changed[table[1]])
        if have[table][1] != want[table][1]:
            plan.commented.append(table)
    _refuse_if_most(con, db, plan)
    return plan


def _stamped(con: duckdb.DuckDBPyConnection) -> tuple[int, str] | None:
    """The other file's stamp: (the live seq it reflects, the live file's mark then)."""
    found = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = ? AND schema_name = ? "
        "AND table_name = ?",
        [TARGET, BOOKS, STAMP],
    ).fetchone()
    if not found or not found[0]:
        return None
    row = con.execute(f"SELECT seq, live_mark FROM {TARGET}.{BOOKS}.{STAMP}").fetchone()
    return None if row is None else (int(row[0]), str(row[1]))


def _mark(con: duckdb.DuckDBPyConnection, db: str, seq: int) -> str:
    """What the live file's changes up to `seq` are: how many, and when the last was recorded
    (to the microsecond, by the wall clock)."""
    found = con.execute(
        f"SELECT count(*), max(recorded_at) FROM {_q(db)}.{BOOKS}.changes WHERE seq <= ?", [seq]
    ).fetchone()
    return f"{found[0]} up to {found[1]}" if found else ""


def _definitions(con: duckdb.DuckDBPyConnection, db: str) -> set[tuple[str, ...]]:
    """A database's macros and views, as (kind, schema, name, definition)."""
    macros = con.execute(
        "SELECT 'macro', schema_name, function_name, coalesce(macro_definition, '') "
        "FROM duckdb_functions() WHERE database_name = ? AND NOT internal "
        "AND function_type IN ('macro', 'table_macro')",
        [db],
    ).fetchall()
    views = con.execute(
        "SELECT 'view', schema_name, view_name, sql FROM duckdb_views() "
        "WHERE database_name = ? AND NOT internal",
        [db],
    ).fetchall()
    return {tuple(str(v) for v in row) for row in [*macros, *views]}


def _tables(con: duckdb.DuckDBPyConnection, db: str) -> dict[Table, tuple[str, str]]:
    """A database's tables: {(schema, table): (DDL, comments)}; the comments of the table and
    its columns as one text, so that either changing shows."""
    tables = con.execute(
        "SELECT schema_name, table_name, sql, coalesce(comment, '') FROM duckdb_tables() "
        "WHERE database_name = ? AND NOT internal AND NOT temporary",
        [db],
    ).fetchall()
    comments: dict[Table, list[str]] = {}
    for schema, table, column, text in con.execute(
        "SELECT schema_name, table_name, column_name, coalesce(comment, '') FROM duckdb_columns() "
        "WHERE database_name = ? ORDER BY schema_name, table_name, column_index",
        [db],
    ).fetchall():
        comments.setdefault((schema, table), []).append(f"{column}={text}")
    return {
        (s, t): (sql, "\n".join([text, *comments.get((s, t), [])])) for s, t, sql, text in tables
    }


def _changes(con: duckdb.DuckDBPyConnection, db: str, since: int) -> dict[str, set[date | None]]:
    """The tables changed after change `since`: {table: its days (None: the table whole)}."""
    found: dict[str, set[date | None]] = {}
    for table, day in con.execute(
        f"SELECT DISTINCT table_name, day FROM {_q(db)}.{BOOKS}.changes WHERE seq > ?", [since]
    ).fetchall():
        found.setdefault(table, set()).add(day)
    return found


def _day_column(table: str) -> str | None:
    """The column a table's rows are placed on days by (a day or month grain on one column),
    or None: a table replaced whole when it changes. A span's (`usage_start .. usage_end`) is
    its start: a changed row's days are recorded from its start's day on (models/grain.py's
    days_sql), so the rows whose start falls on a changed day hold every row that changed."""
    try:
        grain = models.model(table).grain
    except KeyError:
        return None
    if grain is None or grain.kind not in ("day", "month"):
        return None
    return grain.start if grain.start.isidentifier() else None


def _place(plan: _Plan, table: Table, days: set[date | None]) -> None:
    column = _day_column(table[1])
    if column is None or None in days:
        plan.whole.append(table)
    else:
        plan.by_day[table] = (column, sorted(d for d in days if d is not None))


def _by_day_filter(column: str) -> str:
    """The rows of the days bound as $days (and any without a day, never recorded alone)."""
    day, listed = f"CAST({_q(column)} AS DATE)", "CAST($days AS DATE[])"
    # The range first, so that DuckDB skips the row groups outside it (see warehouse/duckdb.py).
    return (
        f"(({day} >= list_min({listed}) AND {day} <= list_max({listed}) "
        f"AND list_contains({listed}, {day})) OR {_q(column)} IS NULL)"
    )


def _refuse_if_most(con: duckdb.DuckDBPyConnection, db: str, plan: _Plan) -> None:
    """A copy of the whole file when over half of live's rows would be written anyway (rows
    counted, not estimated: DuckDB's estimate still holds the deleted ones)."""
    sizes = {
        (s, t): _count(con, f"{_q(db)}.{_q(s)}.{_q(t)}")
        for s, t in con.execute(
            "SELECT schema_name, table_name FROM duckdb_tables() "
            "WHERE database_name = ? AND schema_name <> ? AND NOT temporary",
            [db, BOOKS],
        ).fetchall()
    }
    writing = sum(sizes.get(t, 0) for t in [*plan.made, *plan.whole])
    for (schema, table), (column, days) in plan.by_day.items():
        where = f"WHERE {_by_day_filter(column)}"
        writing += _count(con, f"{_q(db)}.{_q(schema)}.{_q(table)}", where, days)
    total = sum(sizes.values())
    if writing * 2 > total:
        raise _Whole(f"{writing} of {total} rows changed")


def _count(
    con: duckdb.DuckDBPyConnection, table: str, where: str = "", days: list[date] | None = None
) -> int:
    found = con.execute(
        f"SELECT count(*) FROM {table} {where}", {"days": days} if where else None
    ).fetchone()
    return int(found[0]) if found else 0


def _write(con: duckdb.DuckDBPyConnection, db: str, plan: _Plan, now: int) -> None:
    """The plan and the new seq, in one transaction on the other file; any error rolls it back
    and the file is copied whole instead."""
    con.execute("BEGIN")
    try:
        _write_tables(con, db, plan)
        _write_stamp(con, db, now)
        con.execute("COMMIT")
    except duckdb.Error as exc:
        con.execute("ROLLBACK")
        raise _Whole(f"applying the changes failed: {_first_line(exc)}") from exc


def _both(db: str, table: Table) -> tuple[str, str]:
    """A table's name in the other file, and in live."""
    name = f"{_q(table[0])}.{_q(table[1])}"
    return f"{TARGET}.{name}", f"{_q(db)}.{name}"


def _write_tables(con: duckdb.DuckDBPyConnection, db: str, plan: _Plan) -> None:
    for schema in [*plan.schemas, BOOKS]:
        con.execute(f"CREATE SCHEMA IF NOT EXISTS {TARGET}.{_q(schema)}")
    for table in plan.dropped:
        con.execute(f"DROP TABLE {_both(db, table)[0]}")
    for table in plan.made:
        _make(con, db, table)
    for table in plan.whole:
        there, here = _both(db, table)
        con.execute(f"DELETE FROM {there}")
        con.execute(f"INSERT INTO {there} SELECT * FROM {here}")
    for table in plan.appended:
        there, here = _both(db, table)
        con.execute(f"DELETE FROM {there} WHERE seq > ?", [plan.since])
        con.execute(f"INSERT INTO {there} SELECT * FROM {here} WHERE seq > ?", [plan.since])
    for table, (column, days) in plan.by_day.items():
        there, here = _both(db, table)
        keep = _by_day_filter(column)
        con.execute(f"DELETE FROM {there} WHERE {keep}", {"days": days})
        con.execute(f"INSERT INTO {there} SELECT * FROM {here} WHERE {keep}", {"days": days})
    for table in [*plan.made, *plan.commented]:
        _comment(con, db, table)


def _write_stamp(con: duckdb.DuckDBPyConnection, db: str, now: int) -> None:
    """The live seq the other file now reflects, and live's mark at it."""
    con.execute(STAMP_DDL)
    con.execute(f"DELETE FROM {TARGET}.{BOOKS}.{STAMP}")
    con.execute(
        f"INSERT INTO {TARGET}.{BOOKS}.{STAMP} VALUES (?, ?, now()::TIMESTAMP)",
        [now, _mark(con, db, now)],
    )


def _make(con: duckdb.DuckDBPyConnection, db: str, table: Table) -> None:
    """The table made afresh in the other file from live's own DDL, then filled."""
    schema, name = table
    there, here = _both(db, table)
    ddl = con.execute(
        "SELECT sql FROM duckdb_tables() WHERE database_name = ? AND schema_name = ? "
        "AND table_name = ?",
        [db, schema, name],
    ).fetchone()
    con.execute(f"DROP TABLE IF EXISTS {there}")
    con.execute(f"USE {TARGET}")  # the DDL names its table as live does: main's bare
    try:
        con.execute(ddl[0])  # type: ignore[index]
    finally:
        con.execute(f"USE {_q(db)}")
    con.execute(f"INSERT INTO {there} SELECT * FROM {here}")


def _comment(con: duckdb.DuckDBPyConnection, db: str, table: Table) -> None:
    """The table's and its columns' comments, as live has them."""
    schema, name = table
    there = _both(db, table)[0]
    text = con.execute(
        "SELECT comment FROM duckdb_tables() WHERE database_name = ? AND schema_name = ? "
        "AND table_name = ?",
        [db, schema, name],
    ).fetchone()
    con.execute(f"COMMENT ON TABLE {there} IS {_comment_value(text[0] if text else None)}")
    for column, comment in con.execute(
        "SELECT column_name, comment FROM duckdb_columns() WHERE database_name = ? "
        "AND schema_name = ? AND table_name = ?",
        [db, schema, name],
    ).fetchall():
        con.execute(f"COMMENT ON COLUMN {there}.{_q(column)} IS {_comment_value(comment)}")


def _comment_value(text: str | None) -> str:
    return "NULL" if text is None else _literal(text)


def _copy_whole(con: duckdb.DuckDBPyConnection, live: Path, target: Path) -> None:
    """The old way: the checkpointed live file copied (the write lock held) to a fresh file,
    stamped with live's seq, renamed over `target`."""
    db = str(con.execute("SELECT current_database()").fetchone()[0])  # type: ignore[index]
    now = _live_seq(con, db)
    tmp = target.with_name(target.name + ".tmp")
    con.execute("CHECKPOINT")
    shutil.copyfile(live, tmp)
    if now is not None:  # with no bookkeeping, the next publish copies whole again
        _stamp_copy(con, db, tmp, now)
    with open(tmp, "rb") as fh:
        os.fsync(fh.fileno())
    with suppress(FileNotFoundError):  # a crashed publish's log, never to be replayed on the copy
        target.with_name(target.name + ".wal").unlink()
    os.replace(tmp, target)


def _stamp_copy(con: duckdb.DuckDBPyConnection, db: str, copy: Path, now: int) -> None:
    con.execute(f"DETACH DATABASE IF EXISTS {TARGET}")
    con.execute(f"ATTACH {_literal(str(copy))} AS {TARGET}")
    try:
        _write_stamp(con, db, now)
        con.execute(f"CHECKPOINT {TARGET}")
    finally:
        con.execute(f"USE {_q(db)}")
        con.execute(f"DETACH DATABASE {TARGET}")


def _swap(target: Path, snapshot: Path) -> None:
    """Point the published name at `target`: a link under a temporary name, renamed over it."""
    link = snapshot.with_name(snapshot.name + ".link")
    with suppress(FileNotFoundError):
        link.unlink()
    os.link(target, link)
    os.replace(link, snapshot)
    fd = os.open(snapshot.parent, os.O_RDONLY)
    try:
        os.fsync(fd)  # the rename itself durable
    finally:
        os.close(fd)
