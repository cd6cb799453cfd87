"""Optional energy meter: NVML's total-energy counter, through the project's one NVML module.

`import pynvml` happens only in `collectors/nvml/nvml.py`; this hook imports that module
lazily and expects `total_energy_mj(gpu_index: int) -> int | None` (millijoules since the
driver loaded, None when unsupported). Without it (CPU, TPU, no driver, module not
installed) energy is None: unknown, never 0.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

EnergyMeter = Callable[[], float | None]  # cumulative joules since some origin, None if unknown

NVML_MODULE = "collectors.nvml.nvml"
NVML_FUNCTION = "total_energy_mj"


def nvml_energy_meter(backend: str, gpu_index: int) -> EnergyMeter | None:
    """A meter for one NVIDIA GPU, or None when NVML (or its module) is not there."""
    if backend != "gpu":
        return None
    try:
        read_mj = getattr(importlib.import_module(NVML_MODULE), NVML_FUNCTION)
    except Exception:  # noqa: BLE001 - missing module, pynvml or driver: energy is unknown
        return None
    return lambda: _read_j(read_mj, gpu_index)


def _read_j(read_mj: Callable[[int], int | None], gpu_index: int) -> float | None:
    try:
        millijoules = read_mj(gpu_index)
    except Exception:  # noqa: BLE001 - a meter that fails is an unknown reading, not a failed probe
        return None
    return None if millijoules is None else millijoules / 1000.0


def energy_between_j(before_j: float | None, after_j: float | None) -> float | None:
    """Energy over a window; None if either reading is missing or the counter went backwards."""
    if before_j is None or after_j is None or after_j < before_j:
        return None
    return after_j - before_j
