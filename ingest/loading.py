"""Small helpers every source uses: the run's bounds, quarantine rows, and replacing the days a
source has rows for (with its counts)."""

from datetime import date, datetime, timedelta
from decimal import Decimal

import pyarrow as pa
import pyarrow.compute as pc

from flopledger.collectors.limits import Limits
from flopledger.collectors.quarantine import Quarantined, quarantine_table
from flopledger.settings import Config
from flopledger.warehouse import Warehouse


def run_limits(config: Config, now: datetime) -> Limits:
    """The bounds of `flopledger.yaml`'s `limits:` block, the latest timestamp taken from `now`
    (the run's tick or the wall clock at the edge, never deeper)."""
    block = config.limits
    return Limits.around(
        now,
        earliest=datetime.combine(block.earliest, datetime.min.time()),
        future_days=block.future_days,
        max_money=Decimal(str(block.max_money)),
        max_usage=Decimal(str(block.max_usage)),
        max_accelerator_seconds=Decimal(str(block.max_accelerator_seconds)),
        max_row_span=timedelta(days=block.max_row_span_days),
        max_nodes_per_job=block.max_nodes_per_job,
        max_accelerators_per_node=block.max_accelerators_per_node,
    )


def store_quarantine(warehouse: Warehouse, rows: list[Quarantined]) -> int:
    """Insert quarantined rows not stored before. Returns how many were new."""
    if not rows:
        return 0
    return warehouse.insert_new("quarantine", quarantine_table(rows), "quarantine_id")


def replace_days(
    warehouse: Warehouse, table: str, day_of: str, rows: pa.Table, days: list[date]
) -> pa.Table:
    """Replace, in `table`, each day of `days` for which `rows` has rows; return those rows.

    `day_of` names the column whose UTC day places a row (a timestamp or a date). A day the
    inputs no longer hold (a rotated spool, Monitoring's retention, an archived jobs file) is
    left as it was: a rerun never wipes history because its inputs moved on."""
    row_days = pc.cast(rows[day_of], pa.date32())
    wanted = pc.is_in(row_days, value_set=pa.array(days, pa.date32()))
    if not pc.all(wanted, skip_nulls=False).as_py():  # (no Python object per row's day)
        rows, row_days = rows.filter(wanted), row_days.filter(wanted)
    present = sorted(pc.unique(row_days).drop_null().to_pylist())
    if present:
        warehouse.replace_days(table, day_of, present, rows)
    return rows


def load_minutes(
    warehouse: Warehouse,
    table: str,
    samples: pa.Table,
    quarantined: list[Quarantined],
    days: list[date],
    rows_read: int | None = None,
    duplicates: int = 0,
) -> dict[str, int]:
    """Replace the window's days that have samples, and store what was quarantined.

    `rows_read` is the reader's own count of rows found (None: the rows it returned plus what
    it refused and counted as duplicates). Rows read for a day outside `days` are counted in
    `rows_outside_window`, never dropped without a word."""
    rows = replace_days(warehouse, table, "minute", samples, days)
    store_quarantine(warehouse, quarantined)
    found = samples.num_rows + len(quarantined) + duplicates if rows_read is None else rows_read
    return {
        "rows_read": found,
        "rows_loaded": rows.num_rows,
        "rows_duplicate": duplicates,
        "rows_quarantined": len(quarantined),
        "rows_outside_window": samples.num_rows - rows.num_rows,
    }
