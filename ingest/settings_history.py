"""The allocation settings as the marts read them: effective-dated, so that history moves only
on purpose.

flopledger.yaml says the settings now; `settings_history` says which value was in force from
which UTC day. A run (`record`) compares the config with the latest values: a setting that
changed gets a row effective from the first day of the open month: the month of the newest day
the warehouse holds (bookkeeping's newest changed day), or the oldest month not closed at the
run's clock when that is later (`open_month`). Closed and earlier months keep the values they
were built with, and a --full rebuild reads the same history. Only `restate` (the
`flopledger restate --from DAY` command) moves a value's first day back, to DAY.

The first settings ever recorded are in force since the start (effective_from null): what the
warehouse was built with before there was a history cannot be known, so it is taken to be the
config of that first run. `flopledger_settings` keeps showing the current values (key, value).

Only the settings the SQL applies are effective-dated: run_label_key where billing_hourly reads
a billing row's labels, and the chargeback policy and key. The Kubernetes collector names a
pod's run by its own label, `sources.kubernetes.labels.run` (collectors/kubernetes/runs.py;
it should match run_label_key), as pods are read: pods read before a change keep the run ids
they were given, and a restatement does not read them again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

import pyarrow as pa

from flopledger import models
from flopledger.settings import Config
from flopledger.warehouse import Warehouse

HISTORY = "settings_history"
CURRENT = "flopledger_settings"
FIRST = "first recorded"
CHANGED = "config changed (from the open month)"

Row = dict[str, Any]
SCHEMA = pa.schema(
    [
        ("key", pa.string()),
        ("value", pa.string()),
        ("effective_from", pa.date32()),
        ("recorded_at", pa.timestamp("us")),
        ("reason", pa.string()),
    ]
)


@dataclass(frozen=True)
class SettingChange:
    """One setting a run or a restatement changes: its values on the days it touches (each
    with its first day, None: since the start) and the value it takes from `effective_from`."""

    key: str
    before: tuple[tuple[str | None, date | None], ...]
    after: str | None
    effective_from: date | None

    def describe(self) -> str:
        def value(v: str | None) -> str:
            return "(unset)" if v is None else v

        was = ", ".join(
            value(v) + (f" (from {d})" if d is not None and len(self.before) > 1 else "")
            for v, d in self.before
        )
        return f"{self.key}: {was or '(unset)'} -> {value(self.after)}"


def config_settings(config: Config) -> dict[str, str]:
    """The settings the marts are built with, by key, as flopledger_settings lists them."""
    allocation = config.allocation
    return {
        "run_label_key": allocation.run_label_key,
        "reporting_currency": config.reporting_currency,
        "chargeback_policy": allocation.shared_cost_policy,
        **{f"chargeback_key:{t}": str(w) for t, w in allocation.shared_cost_key.items()},
    }


def _first_day(row: Row) -> date:
    return row["effective_from"] or date.min


def in_force(history: list[Row], day: date | None = None) -> dict[str, str]:
    """Each setting's value in force on `day` (None: the latest), unset ones left out."""
    found: dict[str, Row] = {}
    for row in sorted(history, key=_first_day):
        if day is None or _first_day(row) <= day:
            found[row["key"]] = row
    return {k: r["value"] for k, r in found.items() if r["value"] is not None}


def read_history(warehouse: Warehouse) -> list[Row]:
    return warehouse.query(models.query_sql("settings_history_rows")).to_pylist()


def newest_day(warehouse: Warehouse) -> date | None:
    """The newest day of the data the sources loaded (None: nothing yet)."""
    tables = [m.name for m in models.raw_tables() if m.name != HISTORY]
    found = warehouse.query(models.query_sql("bookkeeping_newest_day"), {"tables": tables})
    return found["newest_day"][0].as_py()


def open_month(warehouse: Warehouse, now: datetime, settle_days: int) -> date:
    """The first day of the open month: the month of the newest day loaded, or the oldest
    month not closed at `now` (its report not yet due, `settle_days` after its end) when that
    is later: a change never reaches back into a month already loaded past, nor a closed one."""
    newest = newest_day(warehouse)
    unclosed = (now - timedelta(days=settle_days)).date().replace(day=1)
    return unclosed if newest is None else max(newest.replace(day=1), unclosed)


def values_from(
    history: list[Row], key: str, day: date | None
) -> list[tuple[str | None, date | None]]:
    """The values `key` takes on the days from `day` on (None: every day), each with its first
    day: the one in force on `day` (None, None: unset), then each later one."""
    rows = sorted((r for r in history if r["key"] == key), key=_first_day)
    if day is None:
        return [(r["value"], r["effective_from"]) for r in rows] or [(None, None)]
    on_day = [r for r in rows if _first_day(r) <= day]
    first = (on_day[-1]["value"], on_day[-1]["effective_from"]) if on_day else (None, None)
    return [first, *((r["value"], r["effective_from"]) for r in rows if _first_day(r) > day)]


def plan(
    history: list[Row], settings: dict[str, str], day: date | None, keys: set[str]
) -> tuple[list[SettingChange], list[Row]]:
    """What making `settings` the values of `keys` from `day` on (None: since the start)
    changes, and the rows of the history that stay: those of other keys, and those before
    `day`."""
    changes = [
        SettingChange(k, tuple(values_from(history, k, day)), settings.get(k), day)
        for k in sorted(keys)
    ]
    kept = [r for r in history if r["key"] not in keys or (day is not None and _first_day(r) < day)]
    return changes, kept


def _all_keys(history: list[Row], settings: dict[str, str]) -> set[str]:
    return set(settings) | {r["key"] for r in history}


def changed_now(history: list[Row], settings: dict[str, str]) -> set[str]:
    """The settings whose latest value is not the config's."""
    latest = in_force(history)
    return {k for k in _all_keys(history, settings) if latest.get(k) != settings.get(k)}


def differing_from(history: list[Row], settings: dict[str, str], day: date) -> set[str]:
    """The settings that take a value other than the config's on some day from `day` on."""
    return {
        k
        for k in _all_keys(history, settings)
        if {v for v, _ in values_from(history, k, day)} != {settings.get(k)}
    }


def _write(warehouse: Warehouse, rows: list[Row], settings: dict[str, str]) -> None:
    before = {
        (r["key"], r["value"]) for r in read_history(warehouse) if r["effective_from"] is None
    }
    after = {(r["key"], r["value"]) for r in rows if r["effective_from"] is None}
    ordered = sorted(rows, key=lambda r: (_first_day(r), r["key"]))
    warehouse.replace_all(HISTORY, pa.Table.from_pylist(ordered, schema=SCHEMA))
    if before != after:  # a since-the-start value has no day to record: every day changed
        warehouse.record_changes(HISTORY, None)
    current = pa.table({"key": list(settings), "value": list(settings.values())})
    warehouse.replace_all(CURRENT, current)


def _new_rows(changes: list[SettingChange], now: datetime, reason: str) -> list[Row]:
    return [
        {"key": c.key, "value": c.after, "effective_from": c.effective_from,
         "recorded_at": now, "reason": reason}
        for c in changes
    ]  # fmt: skip


def record(
    warehouse: Warehouse, settings: dict[str, str], now: datetime, settle_days: int
) -> list[SettingChange]:
    """A run's settings at its clock `now`: unchanged, nothing moves; first recorded, in
    force since the start; changed, the changed ones from the first day of the open month on
    (`open_month`)."""
    history = read_history(warehouse)
    month = open_month(warehouse, now, settle_days)
    if not history:
        changes, kept = plan([], settings, None, set(settings))
        reason = FIRST
    else:
        changes, kept = plan(history, settings, month, changed_now(history, settings))
        reason = CHANGED
    rows = kept + _new_rows(changes, now, reason) if changes else history
    _write(warehouse, rows, settings)
    return changes


def restate(
    warehouse: Warehouse, settings: dict[str, str], day: date, now: datetime, reason: str
) -> list[SettingChange]:
    """`settings` in force from `day` on, whatever was recorded for the days since."""
    history = read_history(warehouse)
    changes, kept = plan(history, settings, day, differing_from(history, settings, day))
    _write(warehouse, kept + _new_rows(changes, now, reason), settings)
    return changes
