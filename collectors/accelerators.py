"""Canonical accelerator names for the bill, job metadata and telemetry.

The names and their patterns are rows of the accelerator table (accelerators/table.py); this
module reads SKU descriptions with them, and how each SKU is bought.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import NamedTuple

from flopledger.accelerators import CANONICAL_NAMES, match_alias, match_sku

# Words that say a SKU is accelerator time, not the VM's cores, RAM or disk around it.
_ACCELERATOR_WORDS = re.compile(r"\bGPU\b|gpu slice|\bTpu|\bTPU\b|Trillium", re.I)


class SkuInfo(NamedTuple):
    accelerator_type: str | None
    pricing_model: str  # on_demand, spot, commitment, reserved, dws


def pricing_model(description: str) -> str:
    """How the SKU is bought, read from its description's well-known prefixes and phrases."""
    if description.startswith("Commitment"):
        return "commitment"
    if re.search(r"\bSpot\b|Preemptible", description):
        return "spot"
    if re.search(r"\bReserved\b|\bReservation\b", description):
        return "reserved"
    if re.search(r"\bDWS\b|Dynamic Workload Scheduler", description):
        return "dws"
    return "on_demand"


def classify_sku(description: str | None) -> SkuInfo:
    """The canonical accelerator type of a billing SKU description (None: not an accelerator)."""
    if not description:
        return SkuInfo(None, "on_demand")
    model = pricing_model(description)
    if not _ACCELERATOR_WORDS.search(description):
        return SkuInfo(None, model)
    row = match_sku(description)
    return SkuInfo(None if row is None else row.name, model)


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
