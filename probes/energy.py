"""Optional energy meter: NVML's total-energy counter, through the project's one NVML module.

`import pynvml` happens only in `collectors/nvml/nvml.py`; a meter holds its own `Nvml`
(initialised lazily, on its first reading) and reads `total_energy_mj` (millijoules since
the driver loaded, None when unsupported). Without NVML (CPU, TPU, no driver) energy is
None: unknown, never 0.
"""

from __future__ import annotations

from collections.abc import Callable

from flopledger.collectors.nvml.nvml import Nvml, total_energy_mj

EnergyMeter = Callable[[], float | None]  # cumulative joules since some origin, None if unknown


def nvml_energy_meter(backend: str, gpu_index: int, nvml: Nvml | None = None) -> EnergyMeter | None:
    """A meter for one NVIDIA GPU (None off GPUs); `nvml` is a simulated one in tests."""
    if backend != "gpu":
        return None
    door = nvml if nvml is not None else Nvml()
    return lambda: _read_j(lambda index: total_energy_mj(door, index), gpu_index)


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
