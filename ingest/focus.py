"""FOCUS files into `focus_line_items`, by the UTC day of each row's charge period start.

FOCUS files are read whole (a provider restates a month in place), so besides the window's
days every day the files hold differently from what is loaded is replaced: late rows are never
lost for falling outside the scheduled window. Days the files no longer hold are emptied
(unless the files hold no row at all)."""

from datetime import date, datetime
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from flopledger.budgets.fx import load_fx_rates
from flopledger.collectors.focus.read import FocusRead, read_focus_files
from flopledger.ingest.inputs import SourceInputs, source_inputs
from flopledger.ingest.loading import run_limits, store_quarantine
from flopledger.ingest.run import IngestRun
from flopledger.ingest.source import Loaded, Source, Table
from flopledger.models import query_sql
from flopledger.settings import Config

TABLE = "focus_line_items"


def read_all(
    config: Config, now: datetime, run_key: str | None = None
) -> tuple[SourceInputs, FocusRead]:
    """The configured FOCUS files (local or gs://, listed once per run under `run_key`), read
    with the bounds of the run's clock."""
    inputs = source_inputs(config, "focus", run_key)
    fx = load_fx_rates(config.fx_rates)  # another currency's rows are converted to USD
    return inputs, read_focus_files(inputs.paths, run_limits(config, now), fx=fx)


def days_to_replace(warehouse: Any, read: FocusRead, window: list[date]) -> list[date]:
    """The window's days, every day whose rows differ from what is loaded, and every loaded day
    the files no longer hold (its rows go). A row's line_item_id hashes every value it carries,
    so a day's sorted ids change when any of its rows does (EffectiveCost, tags, resource: not
    only its count or BilledCost). Files that hold no row at all remove nothing (an empty or
    unreachable listing is not a restatement)."""
    loaded: dict[date, list[str]] = {}
    for row in warehouse.query(query_sql("focus_loaded_days")).to_pylist():
        loaded.setdefault(row["day"], []).append(row["line_item_id"])
    held: dict[date, list[str]] = {}
    for day, line_id in zip(
        read.table["charge_day"].to_pylist(), read.table["line_item_id"].to_pylist(), strict=True
    ):
        held.setdefault(day, []).append(line_id)
    changed = {d for d, ids in held.items() if sorted(loaded.get(d, [])) != sorted(ids)}
    gone = set(loaded) - set(held) if held else set()
    return sorted(set(window) | changed | gone)


def load(warehouse: Any, read: FocusRead, window: list[date]) -> dict[str, int]:
    """Replace the chosen days, store the quarantined rows; the counts for the run report (a
    row of a day not replaced, the same as loaded and outside the window, is outside window)."""
    days = days_to_replace(warehouse, read, window)
    if read.table.num_rows:
        # Every chosen day in one transaction, those the files no longer hold emptied: a FOCUS
        # file restates its months whole (ingest.loading.replace_days keeps a day its
        # inputs no longer hold, as rotated telemetry needs).
        day_of = pc.cast(read.table["charge_day"], pa.date32())
        rows = read.table.filter(pc.is_in(day_of, value_set=pa.array(days, pa.date32())))
        if days:
            warehouse.replace_days(TABLE, "charge_day", days, rows)
    else:  # files that hold no row at all remove nothing
        rows = read.table
    store_quarantine(warehouse, read.quarantined)
    return {
        "rows_read": read.table.num_rows + len(read.quarantined) + read.duplicates,
        "rows_loaded": rows.num_rows,
        "rows_duplicate": read.duplicates,
        "rows_quarantined": len(read.quarantined),
        "rows_outside_window": read.table.num_rows - rows.num_rows,
    }


class Focus(Source):
    name = "focus"
    tables = (Table(TABLE, "FOCUS cost and usage rows of every provider (sources.focus)."),)
    day_slack = None  # a provider restates a month in place: files are read whole

    def find_days(self, run: IngestRun) -> set[date]:
        """The days of the FOCUS rows' charge period starts (files are read whole)."""
        read = read_focus_files(self.inputs(run).paths, run.limits)
        return set(read.table["charge_day"].to_pylist())

    def load(self, run: IngestRun) -> Loaded:
        if run.config.sources.focus is None:
            return self.not_configured()
        inputs, read = read_all(run.config, run.now, run.run_key)
        counts = load(run.warehouse, read, run.days)
        run.info(
            f"focus: {counts['rows_loaded']} rows loaded, {counts['rows_quarantined']} quarantined"
        )
        return {TABLE: {**counts, **inputs.metadata(run)}}
