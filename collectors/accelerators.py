"""Canonical accelerator names for the bill, job metadata and telemetry.

The names and their patterns are rows of the accelerator table (accelerators/table.py); this
module reads what jobs and schedulers call an accelerator with them, and the accelerator-seconds
of a SKU's usage. A billing SKU itself is classified by collectors/skus.py.
"""

from __future__ import annotations

from decimal import Decimal

from flopledger.accelerators import CANONICAL_NAMES, match_alias


def canonical_accelerator(name: str | None) -> str | None:
    """Canonical name for what a job file, GKE or Slurm calls an accelerator.

    Canonical names pass through; unknown names give None (the caller reports them)."""
    if not name:
        return None
    if name in CANONICAL_NAMES:
        return name
    row = match_alias(name)
    return None if row is None else row.name


_SECONDS_PER_UNIT = {"seconds": 1, "second": 1, "s": 1, "hour": 3600, "hours": 3600, "h": 3600}


def accelerator_seconds(
    accelerator_type: str | None, amount: Decimal | None, unit: str | None
) -> Decimal | None:
    """Accelerator-seconds of an accelerator SKU's usage (GPU and TPU usage is in seconds)."""
    if accelerator_type is None or amount is None or unit is None:
        return None
    factor = _SECONDS_PER_UNIT.get(unit.strip().lower())
    if factor is None:
        return None
    return amount * factor
