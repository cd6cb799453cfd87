"""A simulated NVML with named scenarios, driving the same agent code as the real one.

`SimulatedNvml` has pynvml's function names and return types (pynvml's own ctypes
structs) and raises pynvml's real exception classes, so `Nvml(backend=SimulatedNvml(...))`
exercises every path of the query helper. Values come from the real captures in
`shared/data/nvidia-smi/` (H100 80GB HBM3 and H200, driver 590.48.01, idle and under
gpu-burn), kept in the accelerator table's rows (accelerators/table.py): e.g. H100 under load 629-636 W, SM clock 1980 MHz, memory clock 2619 MHz,
memory utilisation 9-11 %; idle 69.85 W at 345 MHz with the GpuIdle clock-event reason.

Scenarios (`SCENARIOS`):
- training: every GPU busy (H100), GPM tensor activity ~55 %.
- idle: an idle H200 node (0 % utilisation, idle power, GpuIdle reason).
- not_supported: power, energy and ECC raise NotSupported; processes NoPermission.
- gpu_lost: GPU 3 (or the last) reports XID 79, then is lost after `LOSS_AFTER_S`.
- old_driver: no GPM and no ClocksEventReasons (FunctionNotFound), as before 535.
- energy_reset: the total-energy counter restarts at 0 after `RESET_AFTER_S` (driver reload).
"""

from __future__ import annotations

import ctypes
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import ModuleType, SimpleNamespace
from typing import Any

from flopledger.accelerators import Accelerator, NvmlCapture, accelerator
from flopledger.collectors.nvml.nvml import load_pynvml

MIB = 2**20
LOSS_AFTER_S = 90.0
RESET_AFTER_S = 90.0
XID_FALLEN_OFF_BUS = 79


# The captured GPUs: rows of the accelerator table with their NVML readings.
H100 = accelerator("H100-80GB")
H200 = accelerator("H200-141GB")


@dataclass(frozen=True)
class Scenario:
    """What the simulated node does."""

    name: str
    model: Accelerator = H100  # needs an NVML capture (`Accelerator.nvml`)
    busy: bool = True
    not_supported: frozenset[str] = frozenset()
    no_permission: frozenset[str] = frozenset()
    missing: frozenset[str] = frozenset()  # functions this driver lacks
    lose_gpu: bool = False
    energy_reset: bool = False
    mig_slices: int = 0  # MIG mode with this many MIG devices per GPU


_GPM = frozenset(
    {"nvmlGpmQueryDeviceSupport", "nvmlGpmSampleAlloc", "nvmlGpmSampleGet", "nvmlGpmMetricsGet"}
)

SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in (
        Scenario("training"),
        Scenario("idle", model=H200, busy=False),
        Scenario(
            "not_supported",
            not_supported=frozenset(
                {
                    "nvmlDeviceGetPowerUsage",
                    "nvmlDeviceGetTotalEnergyConsumption",
                    "nvmlDeviceGetTotalEccErrors",
                }
            ),
            no_permission=frozenset({"nvmlDeviceGetComputeRunningProcesses"}),
        ),
        Scenario("gpu_lost", lose_gpu=True),
        Scenario(
            "old_driver",
            missing=_GPM | {"nvmlDeviceGetCurrentClocksEventReasons"},
        ),
        Scenario("energy_reset", energy_reset=True),
        Scenario("mig", mig_slices=2),
    )
}


@dataclass
class _SimHandle:
    index: int


@dataclass
class _SimMigHandle:
    index: int  # the parent GPU
    slot: int


@dataclass
class _SimEvent:
    device: _SimHandle
    eventType: int
    eventData: int
    gpuInstanceId: int = 0xFFFFFFFF
    computeInstanceId: int = 0xFFFFFFFF


@dataclass
class _Energy:
    counter_mj: float
    last_t_s: float


@dataclass
class _EventSet:
    devices: set[int] = field(default_factory=set)
    queue: list[_SimEvent] = field(default_factory=list)


def _capture(model: Accelerator) -> tuple[str, NvmlCapture]:
    """The NVML name and captured readings a simulated GPU reports."""
    if model.device_name is None or model.nvml is None:
        raise ValueError(f"no NVML capture of {model.name} to simulate (accelerators/table.py)")
    return model.device_name, model.nvml


def _wave(index: int, t_s: float, period_s: float) -> float:
    """A deterministic wobble in [-1, 1] (no random state: runs are repeatable)."""
    return math.sin(2 * math.pi * t_s / period_s + index)


class SimulatedNvml:
    """pynvml's functions over simulated GPUs. `clock` is seconds (monotonic)."""

    def __init__(
        self,
        scenario: str | Scenario = "training",
        gpus: int = 8,
        clock: Callable[[], float] = time.monotonic,
        minor_numbers: Sequence[int] | None = None,
    ) -> None:
        self.scenario = SCENARIOS[scenario] if isinstance(scenario, str) else scenario
        # /dev/nvidia<minor> of each GPU, by NVML index: the driver's numbering, which need
        # not follow NVML's PCI-bus order (default: the same).
        self.minor_numbers = list(minor_numbers) if minor_numbers is not None else list(range(gpus))
        if len(self.minor_numbers) != gpus:
            raise ValueError(f"{gpus} GPUs need {gpus} minor numbers, got {self.minor_numbers}")
        self.gpu_name, self.gpu = _capture(self.scenario.model)
        self.gpu_count = gpus
        self.clock = clock
        self.pynvml: ModuleType = load_pynvml()
        self.calls = 0
        self._t0: float | None = None
        self._energy: dict[int, _Energy] = {}
        self._reset_done = False
        self._lost_index = min(3, gpus - 1) if self.scenario.lose_gpu else None
        self._xid_sent = False
        self._event_sets: list[_EventSet] = []
        self._gpm: dict[int, tuple[int, float]] = {}  # sample address -> (gpu, time)

    # -- plumbing -------------------------------------------------------------------

    def _error(self, code: int) -> Exception:
        return self.pynvml.NVMLError(code)  # maps to pynvml's subclass for `code`

    def _t(self) -> float:
        if self._t0 is None:
            raise self._error(self.pynvml.NVML_ERROR_UNINITIALIZED)
        return self.clock() - self._t0

    def _enter(self, fn: str, handle: _SimHandle | None = None) -> float:
        """Common checks of every call; returns seconds since nvmlInit."""
        self.calls += 1
        t = self._t()
        lib = self.pynvml
        if fn in self.scenario.missing:
            raise self._error(lib.NVML_ERROR_FUNCTION_NOT_FOUND)
        if fn in self.scenario.not_supported:
            raise self._error(lib.NVML_ERROR_NOT_SUPPORTED)
        if fn in self.scenario.no_permission:
            raise self._error(lib.NVML_ERROR_NO_PERMISSION)
        if handle is not None and self._is_lost(handle.index, t):
            raise self._error(lib.NVML_ERROR_GPU_IS_LOST)
        return t

    def _is_lost(self, index: int, t: float) -> bool:
        if index != self._lost_index:
            return False
        if t >= LOSS_AFTER_S - 1 and not self._xid_sent:
            self._xid_sent = True
            self._post_xid(index)
        return t >= LOSS_AFTER_S

    def _post_xid(self, index: int) -> None:
        event_type = self.pynvml.nvmlEventTypeXidCriticalError
        for event_set in self._event_sets:
            if index in event_set.devices:
                event_set.queue.append(_SimEvent(_SimHandle(index), event_type, XID_FALLEN_OFF_BUS))

    def _busy(self, index: int) -> bool:
        return self.scenario.busy

    # -- init and identity ----------------------------------------------------------

    def nvmlInit(self) -> None:
        self.calls += 1
        if self._t0 is None:
            self._t0 = self.clock()

    def nvmlShutdown(self) -> None:
        self.calls += 1
        self._t()

    def nvmlSystemGetDriverVersion(self) -> str:
        self._enter("nvmlSystemGetDriverVersion")
        return "535.54.03" if self.scenario.name == "old_driver" else "590.48.01"

    def nvmlDeviceGetCount(self) -> int:
        self._enter("nvmlDeviceGetCount")
        return self.gpu_count

    def nvmlDeviceGetHandleByIndex(self, index: int) -> _SimHandle:
        self._enter("nvmlDeviceGetHandleByIndex")
        if not 0 <= index < self.gpu_count:
            raise self._error(self.pynvml.NVML_ERROR_INVALID_ARGUMENT)
        return _SimHandle(index)

    def nvmlDeviceGetUUID(self, handle: _SimHandle | _SimMigHandle) -> str:
        self._enter("nvmlDeviceGetUUID", handle)  # type: ignore[arg-type]
        if isinstance(handle, _SimMigHandle):
            return f"MIG-5e1f0000-0000-4000-8000-{handle.index:06x}{handle.slot:06x}"
        return f"GPU-5e1f0000-0000-4000-8000-{handle.index:012x}"

    def nvmlDeviceGetMinorNumber(self, handle: _SimHandle) -> int:
        self._enter("nvmlDeviceGetMinorNumber", handle)
        return self.minor_numbers[handle.index]

    def nvmlDeviceGetPciInfo(self, handle: _SimHandle) -> Any:
        """The PCI address (`busId` as NVML writes it: domain:bus:device.function)."""
        self._enter("nvmlDeviceGetPciInfo", handle)
        return SimpleNamespace(busId=f"00000000:{0x18 + 0x10 * handle.index:02X}:00.0")

    def nvmlDeviceGetMigMode(self, handle: _SimHandle) -> list[int]:
        self._enter("nvmlDeviceGetMigMode", handle)
        mode = 1 if self.scenario.mig_slices else 0
        return [mode, mode]

    def nvmlDeviceGetMaxMigDeviceCount(self, handle: _SimHandle) -> int:
        self._enter("nvmlDeviceGetMaxMigDeviceCount", handle)
        return 7 if self.scenario.mig_slices else 0

    def nvmlDeviceGetMigDeviceHandleByIndex(self, handle: _SimHandle, slot: int) -> _SimMigHandle:
        self._enter("nvmlDeviceGetMigDeviceHandleByIndex", handle)
        if not self.scenario.mig_slices:
            raise self._error(self.pynvml.NVML_ERROR_INVALID_ARGUMENT)
        if slot >= self.scenario.mig_slices:
            raise self._error(self.pynvml.NVML_ERROR_NOT_FOUND)
        return _SimMigHandle(handle.index, slot)

    def nvmlDeviceGetName(self, handle: _SimHandle) -> str:
        self._enter("nvmlDeviceGetName", handle)
        return self.gpu_name

    # -- readings -------------------------------------------------------------------

    def nvmlDeviceGetUtilizationRates(self, handle: _SimHandle) -> Any:
        t = self._enter("nvmlDeviceGetUtilizationRates", handle)
        util = self.pynvml.c_nvmlUtilization_t()
        if self._busy(handle.index):
            util.gpu = 100 if _wave(handle.index, t, 37) > -0.9 else 97
            util.memory = round(10 + _wave(handle.index, t, 23))
        return util

    def nvmlDeviceGetMemoryInfo(self, handle: _SimHandle, version: Any = None) -> Any:
        self._enter("nvmlDeviceGetMemoryInfo", handle)
        mem = self.pynvml.c_nvmlMemory_t()
        mem.total = self.gpu.mem_total_bytes
        mem.used = (62_000 + 16 * handle.index) * MIB if self._busy(handle.index) else 0
        mem.free = mem.total - mem.used
        return mem

    def _power_w(self, index: int, t: float) -> float:
        model = self.gpu
        if self._busy(index):
            return model.busy_power_w + 4.0 * _wave(index, t, 29)
        return model.idle_power_w

    def nvmlDeviceGetPowerUsage(self, handle: _SimHandle) -> int:
        t = self._enter("nvmlDeviceGetPowerUsage", handle)
        return round(self._power_w(handle.index, t) * 1000)  # milliwatts

    def nvmlDeviceGetTotalEnergyConsumption(self, handle: _SimHandle) -> int:
        t = self._enter("nvmlDeviceGetTotalEnergyConsumption", handle)
        energy = self._energy.setdefault(
            handle.index,
            _Energy(3.6e9 * (1 + handle.index), t),  # ~1 kWh per index so far
        )
        energy.counter_mj += self._power_w(handle.index, t) * (t - energy.last_t_s) * 1000  # mJ
        energy.last_t_s = t
        if self.scenario.energy_reset and t >= RESET_AFTER_S and not self._reset_done:
            self._reset_done = True  # driver reload: every counter restarts
            for other in self._energy.values():
                other.counter_mj = 0.0
        return int(energy.counter_mj)

    def nvmlDeviceGetClockInfo(self, handle: _SimHandle, clock_type: int) -> int:
        self._enter("nvmlDeviceGetClockInfo", handle)
        model = self.gpu
        if clock_type == self.pynvml.NVML_CLOCK_MEM:
            return model.mem_clock_mhz
        return model.sm_clock_max_mhz if self._busy(handle.index) else model.sm_clock_idle_mhz

    def _clock_reasons(self, fn: str, handle: _SimHandle) -> int:
        self._enter(fn, handle)
        return 0 if self._busy(handle.index) else self.pynvml.nvmlClocksEventReasonGpuIdle

    def nvmlDeviceGetCurrentClocksEventReasons(self, handle: _SimHandle) -> int:
        return self._clock_reasons("nvmlDeviceGetCurrentClocksEventReasons", handle)

    def nvmlDeviceGetCurrentClocksThrottleReasons(self, handle: _SimHandle) -> int:
        return self._clock_reasons("nvmlDeviceGetCurrentClocksThrottleReasons", handle)

    def nvmlDeviceGetTotalEccErrors(self, handle: _SimHandle, error_type: int, counter: int) -> int:
        self._enter("nvmlDeviceGetTotalEccErrors", handle)
        return 0

    def nvmlDeviceGetComputeRunningProcesses(self, handle: _SimHandle) -> list[Any]:
        self._enter("nvmlDeviceGetComputeRunningProcesses", handle)
        return [object()] if self._busy(handle.index) else []

    # -- events (XID) ---------------------------------------------------------------

    def nvmlEventSetCreate(self) -> _EventSet:
        self._enter("nvmlEventSetCreate")
        event_set = _EventSet()
        self._event_sets.append(event_set)
        return event_set

    def nvmlEventSetFree(self, event_set: _EventSet) -> None:
        self.calls += 1
        if event_set in self._event_sets:
            self._event_sets.remove(event_set)

    def nvmlDeviceGetSupportedEventTypes(self, handle: _SimHandle) -> int:
        self._enter("nvmlDeviceGetSupportedEventTypes", handle)
        return int(self.pynvml.nvmlEventTypeXidCriticalError)

    def nvmlDeviceRegisterEvents(
        self, handle: _SimHandle, types: int, event_set: _EventSet
    ) -> None:
        self._enter("nvmlDeviceRegisterEvents", handle)
        event_set.devices.add(handle.index)

    def nvmlEventSetWait(self, event_set: _EventSet, timeout_ms: int) -> _SimEvent:
        self._enter("nvmlEventSetWait")
        if not event_set.queue:
            raise self._error(self.pynvml.NVML_ERROR_TIMEOUT)
        return event_set.queue.pop(0)

    # -- GPM (Hopper) ---------------------------------------------------------------

    def nvmlGpmQueryDeviceSupport(self, handle: _SimHandle) -> Any:
        self._enter("nvmlGpmQueryDeviceSupport", handle)
        support = self.pynvml.c_nvmlGpmSupport_t()
        support.version, support.isSupportedDevice = 1, 1
        return support

    def nvmlGpmSampleAlloc(self) -> Any:
        self._enter("nvmlGpmSampleAlloc")
        return ctypes.pointer(self.pynvml.struct_c_nvmlGpmSample_t())

    def nvmlGpmSampleFree(self, sample: Any) -> None:
        self.calls += 1
        self._gpm.pop(ctypes.addressof(sample.contents), None)

    def nvmlGpmSampleGet(self, handle: _SimHandle, sample: Any) -> Any:
        t = self._enter("nvmlGpmSampleGet", handle)
        self._gpm[ctypes.addressof(sample.contents)] = (handle.index, t)
        return sample

    def nvmlGpmMetricsGet(self, request: Any) -> Any:
        self._enter("nvmlGpmMetricsGet")
        index, t = self._gpm[ctypes.addressof(request.sample2.contents)]
        for i in range(request.numMetrics):
            metric = request.metrics[i]
            metric.value = self._gpm_value(metric.metricId, index, t)
            metric.nvmlReturn = self.pynvml.NVML_SUCCESS
        return request

    def _gpm_value(self, metric_id: int, index: int, t: float) -> float:
        if not self._busy(index):
            return 0.0
        lib = self.pynvml
        base = {
            lib.NVML_GPM_METRIC_SM_UTIL: 92.0,
            lib.NVML_GPM_METRIC_SM_OCCUPANCY: 38.0,
            lib.NVML_GPM_METRIC_ANY_TENSOR_UTIL: 55.0,
            lib.NVML_GPM_METRIC_DRAM_BW_UTIL: 48.0,
        }.get(metric_id, 0.0)
        return base + 2.0 * _wave(index, t, 17)
