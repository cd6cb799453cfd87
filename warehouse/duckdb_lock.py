"""DuckDB's refusal to open a file another process writes, as a WarehouseLocked naming it."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
from flopledger.warehouse.base import WarehouseLocked

_HOLDER = re.compile(r"Conflicting lock is held in .*\(PID (\d+)\)")


def as_locked(exc: duckdb.Error, path: str | Path) -> WarehouseLocked | None:
    """The lock error `exc` stands for (with the holder's PID when DuckDB names it), else None."""
    text = str(exc)
    if "Could not set lock" not in text:
        return None
    holder = _HOLDER.search(text)
    return WarehouseLocked(str(path), int(holder.group(1)) if holder else None)
