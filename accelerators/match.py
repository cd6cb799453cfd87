"""What canonical accelerator type a name means, by the table's patterns (first match wins).

Three kinds of name: billing SKU descriptions, what people and schedulers write (GKE, Slurm,
job files), and what JAX reports as `device_kind`. Matching is case-insensitive.
"""

from __future__ import annotations

import re

from flopledger.accelerators.spec import Accelerator
from flopledger.accelerators.table import ACCELERATORS

_Patterns = tuple[tuple[re.Pattern[str], Accelerator], ...]

_SKU: _Patterns = tuple((re.compile(a.sku_pattern, re.I), a) for a in ACCELERATORS)
_ALIAS: _Patterns = tuple((re.compile(a.alias_pattern, re.I), a) for a in ACCELERATORS)
_DEVICE: _Patterns = tuple(
    (re.compile(a.device_pattern, re.I), a) for a in ACCELERATORS if a.device_pattern is not None
)


def _first(patterns: _Patterns, text: str) -> Accelerator | None:
    return next((row for pattern, row in patterns if pattern.search(text)), None)


def match_sku(description: str) -> Accelerator | None:
    """The row whose SKU pattern matches a billing SKU description."""
    return _first(_SKU, description)


def match_alias(name: str) -> Accelerator | None:
    """The row whose alias pattern matches a job file's, GKE's or Slurm's accelerator name."""
    return _first(_ALIAS, name)


def match_device_kind(device_kind: str) -> Accelerator | None:
    """The row whose device pattern matches JAX's device_kind ("NVIDIA H200", "TPU v5 lite")."""
    return _first(_DEVICE, device_kind.strip())
