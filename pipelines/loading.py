"""Small helpers every raw asset uses: quarantine rows, per-source read counts, and replacing
the days a source has rows for."""

from datetime import date

import dagster as dg
import pyarrow as pa
import pyarrow.compute as pc

from collectors.quarantine import Quarantined, quarantine_table
from warehouse import Warehouse


def store_quarantine(warehouse: Warehouse, rows: list[Quarantined]) -> int:
    """Insert quarantined rows not stored before. Returns how many were new."""
    if not rows:
        return 0
    return warehouse.insert_new("quarantine", quarantine_table(rows), "quarantine_id")


def counts_metadata(**counts: int) -> dict[str, dg.MetadataValue]:
    return {name: dg.MetadataValue.int(int(value)) for name, value in counts.items()}


def replace_days(
    warehouse: Warehouse, table: str, day_of: str, rows: pa.Table, days: list[date]
) -> pa.Table:
    """Replace, in `table`, each day of `days` for which `rows` has rows; return those rows.

    `day_of` names the column whose UTC day places a row (a timestamp or a date). A day the
    inputs no longer hold (a rotated spool, Monitoring's retention, an archived jobs file) is
    left as it was: a rerun never wipes history because its inputs moved on."""
    row_days = pc.cast(rows[day_of], pa.date32())
    rows = rows.filter(pc.is_in(row_days, value_set=pa.array(days, pa.date32())))
    present = sorted(set(pc.cast(rows[day_of], pa.date32()).to_pylist()))
    if present:
        warehouse.replace_days(table, day_of, present, rows)
    return rows


def load_minutes(
    warehouse: Warehouse,
    table: str,
    samples: pa.Table,
    quarantined: list[Quarantined],
    days: list[date],
) -> dict[str, dg.MetadataValue]:
    """Replace the window's days that have samples, and store what was quarantined."""
    rows = replace_days(warehouse, table, "minute", samples, days)
    store_quarantine(warehouse, quarantined)
    return counts_metadata(
        rows_read=rows.num_rows + len(quarantined),
        rows_loaded=rows.num_rows,
        rows_quarantined=len(quarantined),
    )
