"""The one door to NVML: the query helper's error mapping and `total_energy_mj`."""

from __future__ import annotations

import pytest

from flopledger.collectors.nvml.nvml import GpuLost, Nvml, total_energy_mj
from flopledger.collectors.nvml.simulated import LOSS_AFTER_S, SimulatedNvml


class Clock:
    def __init__(self) -> None:
        self.now_s = 0.0

    def __call__(self) -> float:
        return self.now_s


def test_query_initialises_lazily_and_maps_errors() -> None:
    clock = Clock()
    backend = SimulatedNvml("not_supported", gpus=4, clock=clock)
    nvml = Nvml(backend)
    assert backend.calls == 0  # nothing until the first query
    handle = nvml.handle(0)
    assert nvml.query("nvmlDeviceGetPowerUsage", handle) is None  # NotSupported
    assert nvml.query("nvmlDeviceGetComputeRunningProcesses", handle) is None  # NoPermission
    assert nvml.query("nvmlDeviceGetMemoryInfo", handle).total == 81559 * 2**20
    assert nvml.query("nvmlDeviceGetHandleByIndex", 99) is None  # InvalidArgument: logged


def test_lost_gpu_raises_gpu_lost_and_old_driver_gives_none() -> None:
    clock = Clock()
    nvml = Nvml(SimulatedNvml("gpu_lost", gpus=4, clock=clock))
    handle = nvml.handle(3)
    assert nvml.query("nvmlDeviceGetPowerUsage", handle) is not None
    clock.now_s = LOSS_AFTER_S
    with pytest.raises(GpuLost):
        nvml.query("nvmlDeviceGetPowerUsage", handle)

    old = Nvml(SimulatedNvml("old_driver", gpus=1, clock=clock))
    assert old.query("nvmlGpmQueryDeviceSupport", old.handle(0)) is None  # FunctionNotFound


def test_total_energy_mj(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    nvml = Nvml(SimulatedNvml("idle", 2, clock))
    first = total_energy_mj(nvml, 1)
    clock.now_s = 10.0
    # H200 idle at 77.67 W for 10 s = 776.7 J = 776_700 mJ (int truncation: within 1 mJ)
    assert first is not None and abs(total_energy_mj(nvml, 1) - first - 776_700) <= 1  # type: ignore[operator]

    assert total_energy_mj(Nvml(SimulatedNvml("not_supported", 2)), 0) is None

    monkeypatch.setitem(__import__("sys").modules, "pynvml", None)  # no bindings at all
    assert total_energy_mj(Nvml(), 0) is None
