"""Canonical accelerator names, shared by the bill, job metadata, telemetry and probes.

Specs are data: one table of patterns, matched in order (the first match wins, so
more specific patterns come first). To add a SKU family, add a row.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import NamedTuple


class AcceleratorPattern(NamedTuple):
    canonical: str  # e.g. "H100-80GB", "TPU-v5p"
    family: str  # "gpu" or "tpu"
    sku_pattern: str  # regex on the billing SKU description (case-insensitive)
    alias_pattern: str  # regex on names people and schedulers write (GKE, Slurm, jobs)


ACCELERATORS: tuple[AcceleratorPattern, ...] = (
    # Billing: "Nvidia H100 80GB Mega GPU", "Nvidia H100 Mega 80GB GPU", "Nvidia H100 80GB Plus GPU".
    AcceleratorPattern(
        "H100-MEGA-80GB", "gpu", r"\bH100 (80GB (Mega|Plus)|Mega 80GB)\b", r"h100[-_ ]?(80gb[-_ ]?)?mega"
    ),
    AcceleratorPattern("H100-80GB", "gpu", r"\bH100 80GB\b", r"\bh100\b|h100[-_ ]?80gb|h100[-_ ]?sxm"),
    # Billing: "H200 141GB GPU running in Americas" (no "Nvidia" prefix).
    AcceleratorPattern("H200-141GB", "gpu", r"\bH200 141GB\b", r"h200"),
    # Billing: "A4 Nvidia B200 (1 gpu slice) running in Americas".
    AcceleratorPattern("B200-180GB", "gpu", r"\bB200\b", r"b200"),
    AcceleratorPattern("A100-80GB", "gpu", r"\bA100 80GB\b", r"a100[-_ ]?80gb"),
    # Billing: "Nvidia Tesla A100 GPU running in Americas" is the 40 GB part.
    AcceleratorPattern("A100-40GB", "gpu", r"\b(Tesla )?A100\b", r"a100([-_ ]?40gb)?"),
    AcceleratorPattern("L4-24GB", "gpu", r"\bNvidia L4\b|\bL4 GPU\b", r"(nvidia[-_ ])?\bl4\b"),
    AcceleratorPattern("TPU-v6e", "tpu", r"TpuV6e|\bTPU v6e\b|Trillium", r"v6e|v6[-_ ]?lite|trillium"),
    AcceleratorPattern("TPU-v5p", "tpu", r"TpuV5p|\bTPU v5p\b|Tpu-v5p", r"v5p"),
    AcceleratorPattern(
        "TPU-v5e", "tpu", r"TpuV5e|\bTPU v5e\b|TpuV5litepod|v5 ?lite", r"v5e|v5[-_ ]?lite(pod)?"
    ),
    # Legacy Cloud TPU service (E000-3F24-B8AA): "Tpu-v4 ...", "TPU v4 Pod ...".
    AcceleratorPattern("TPU-v4", "tpu", r"\bTpu-?v4\b|\bTPU v4\b", r"(tpu[-_ ]?)v4\b"),
    AcceleratorPattern("TPU-v3", "tpu", r"\bTpu-?v3\b|\bTPU v3\b", r"(tpu[-_ ]?)v3\b"),
    AcceleratorPattern("TPU-v2", "tpu", r"\bTpu-?v2\b|\bTPU v2\b", r"(tpu[-_ ]?)v2\b"),
)

_SKU = [(re.compile(p.sku_pattern, re.I), p.canonical) for p in ACCELERATORS]
_ALIAS = [(re.compile(p.alias_pattern, re.I), p.canonical) for p in ACCELERATORS]
CANONICAL_NAMES = frozenset(p.canonical for p in ACCELERATORS)
FAMILY = {p.canonical: p.family for p in ACCELERATORS}

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
    for pattern, canonical in _SKU:
        if pattern.search(description):
            return SkuInfo(canonical, model)
    return SkuInfo(None, model)


def canonical_accelerator(name: str | None) -> str | None:
    """Canonical name for what a job file, GKE or Slurm calls an accelerator.

    Canonical names pass through; unknown names give None (the caller reports them)."""
    if not name:
        return None
    if name in CANONICAL_NAMES:
        return name
    for pattern, canonical in _ALIAS:
        if pattern.search(name):
            return canonical
    return None


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
