"""Rows and peaks of the accelerator table by canonical name."""

from __future__ import annotations

from flopledger.accelerators.spec import Accelerator
from flopledger.accelerators.table import ACCELERATORS

CANONICAL_NAMES = frozenset(a.name for a in ACCELERATORS)


def find_accelerator(name: str | None) -> Accelerator | None:
    """The row of a canonical accelerator type; None when unknown."""
    return next((a for a in ACCELERATORS if a.name == name), None)


def accelerator(name: str) -> Accelerator:
    """The row of a canonical accelerator type; KeyError when there is none."""
    row = find_accelerator(name)
    if row is None:
        raise KeyError(f"no accelerator type {name!r} in accelerators/table.py")
    return row


def peak_tflops(name: str | None, dtype: str) -> float | None:
    """Peak dense TFLOP/s of a canonical accelerator type in a dtype; None when not published."""
    row = find_accelerator(name)
    if row is None:
        return None
    return next((p.tflops for p in row.peaks if p.dtype == dtype), None)
