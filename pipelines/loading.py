"""Small helpers every raw asset uses: quarantine rows and per-source read counts."""

from __future__ import annotations

import dagster as dg

from collectors.quarantine import Quarantined, quarantine_table
from pipelines.warehouse import Warehouse


def store_quarantine(warehouse: Warehouse, rows: list[Quarantined]) -> int:
    """Insert quarantined rows not stored before. Returns how many were new."""
    if not rows:
        return 0
    return warehouse.insert_new("quarantine", quarantine_table(rows), "quarantine_id")


def counts_metadata(**counts: int) -> dict[str, dg.MetadataValue]:
    return {name: dg.MetadataValue.int(int(value)) for name, value in counts.items()}
