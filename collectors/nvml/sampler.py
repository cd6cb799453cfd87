"""One reading per GPU per interval, through `Nvml.query` only.

Counters that NVML keeps as running totals (energy, ECC) are read raw here; the
aggregator turns them into per-minute deltas. XID errors arrive as NVML events and are
counted per GPU between readings. On Hopper and newer, GPM metrics (SM activity, SM
occupancy, tensor activity, DRAM bandwidth) are computed from two GPM samples taken one
interval apart.
"""

from __future__ import annotations

import ctypes
import logging
from dataclasses import dataclass, field
from typing import Any

from flopledger.collectors.nvml.nvml import GpuLost, Nvml, text

log = logging.getLogger(__name__)

MAX_EVENTS_PER_DRAIN = 1000
# pynvml constant names, in the order of Reading's sm_active, sm_occupancy, tensor, dram fields
GPM_METRICS = (
    "NVML_GPM_METRIC_SM_UTIL",
    "NVML_GPM_METRIC_SM_OCCUPANCY",
    "NVML_GPM_METRIC_ANY_TENSOR_UTIL",
    "NVML_GPM_METRIC_DRAM_BW_UTIL",
)


@dataclass(slots=True)
class Reading:
    """What one GPU said at one instant. None: unknown (not supported, not permitted)."""

    gpu_index: int
    gpu_uuid: str | None
    gpu_name: str | None
    status: str = "ok"  # ok | lost
    util_gpu_pct: float | None = None
    util_mem_pct: float | None = None
    mem_used_bytes: int | None = None
    mem_total_bytes: int | None = None
    power_w: float | None = None
    energy_mj: int | None = None  # the running total-energy counter, not a delta
    sm_clock_mhz: float | None = None
    mem_clock_mhz: float | None = None
    clock_event_reasons: int | None = None
    ecc_errors_total: int | None = None  # running volatile counter (corrected + uncorrected)
    xid_events: int | None = None  # XID events since the previous reading
    compute_processes: int | None = None
    sm_active_pct: float | None = None
    sm_occupancy_pct: float | None = None
    tensor_active_pct: float | None = None
    dram_bw_util_pct: float | None = None


@dataclass
class _Gpu:
    index: int
    handle: Any
    uuid: str | None
    name: str | None
    gpm_samples: list[Any] = field(default_factory=list)  # two buffers, or empty: no GPM
    gpm_next: int = 0
    gpm_primed: bool = False
    gpm_request: Any = None
    xid_registered: bool = False
    mig_uuids: list[str] = field(default_factory=list)  # MIG devices, when in MIG mode
    minor: int | None = None  # /dev/nvidia<minor>: how GKE's device plugin names the GPU
    pci_bus_id: str | None = None  # 00000000:18:00.0, as NVML writes it


class GpuSampler:
    """Discovers the GPUs once (again after a driver reload) and reads them each tick."""

    def __init__(self, nvml: Nvml) -> None:
        self.nvml = nvml
        self.gpus: list[_Gpu] = []
        self._generation = -1
        self._event_set: Any = None

    # -- discovery -------------------------------------------------------------------

    def discover(self) -> None:
        """Find every GPU, its identity, GPM buffers and XID event registration."""
        self.nvml.init()
        self._generation = self.nvml.generation
        self._event_set = self.nvml.query("nvmlEventSetCreate")
        self.gpus = [self._discover_gpu(i) for i in range(self.nvml.device_count())]
        log.info("NVML: %d GPU(s): %s", len(self.gpus), [g.name for g in self.gpus])

    def _discover_gpu(self, index: int) -> _Gpu:
        try:
            handle = self.nvml.handle(index)
            gpu = _Gpu(
                index=index,
                handle=handle,
                uuid=text(self.nvml.query("nvmlDeviceGetUUID", handle)),
                name=text(self.nvml.query("nvmlDeviceGetName", handle)),
            )
        except GpuLost:
            return _Gpu(index=index, handle=None, uuid=None, name=None)
        self._setup_gpm(gpu)
        self._register_xid(gpu)
        gpu.mig_uuids = self._mig_uuids(handle)
        minor = self.nvml.query("nvmlDeviceGetMinorNumber", handle)
        gpu.minor = minor if isinstance(minor, int) else None
        pci = self.nvml.query("nvmlDeviceGetPciInfo", handle)
        gpu.pci_bus_id = text(getattr(pci, "busId", None))
        return gpu

    def _mig_uuids(self, handle: Any) -> list[str]:
        """UUIDs of the GPU's MIG devices when it is in MIG mode (NVIDIA's device plugin
        hands MIG slices to pods by these); empty otherwise."""
        q = self.nvml.query
        try:
            mode = q("nvmlDeviceGetMigMode", handle)
            if not mode or mode[0] != self.nvml.pynvml.NVML_DEVICE_MIG_ENABLE:
                return []
            uuids = []
            for slot in range(q("nvmlDeviceGetMaxMigDeviceCount", handle) or 0):
                mig = q("nvmlDeviceGetMigDeviceHandleByIndex", handle, slot)
                uuid = text(q("nvmlDeviceGetUUID", mig)) if mig is not None else None
                if uuid:
                    uuids.append(uuid)
            return uuids
        except GpuLost:
            return []

    def _setup_gpm(self, gpu: _Gpu) -> None:
        support = self.nvml.query("nvmlGpmQueryDeviceSupport", gpu.handle)
        if support is None or not support.isSupportedDevice:
            return
        samples = [self.nvml.query("nvmlGpmSampleAlloc") for _ in range(2)]
        if any(s is None for s in samples):
            return
        gpu.gpm_samples = samples
        gpu.gpm_request = self._gpm_request()

    def _gpm_request(self) -> Any:
        """A reusable metrics request: version and metric ids set once."""
        lib = self.nvml.pynvml
        request = lib.c_nvmlGpmMetricsGet_t()
        request.version = lib.NVML_GPM_METRICS_GET_VERSION
        request.numMetrics = len(GPM_METRICS)
        for i, name in enumerate(GPM_METRICS):
            request.metrics[i].metricId = getattr(lib, name)
        return request

    def _register_xid(self, gpu: _Gpu) -> None:
        if self._event_set is None:
            return
        xid_type = self.nvml.pynvml.nvmlEventTypeXidCriticalError
        supported = self.nvml.query("nvmlDeviceGetSupportedEventTypes", gpu.handle)
        if not supported or not supported & xid_type:
            return  # xid_errors stays null for this GPU
        self.nvml.query("nvmlDeviceRegisterEvents", gpu.handle, xid_type, self._event_set)
        gpu.xid_registered = True

    def close(self) -> None:
        """Free GPM buffers and the event set; shut NVML down."""
        for gpu in self.gpus:
            for sample in gpu.gpm_samples:
                self.nvml.query_uninitialized("nvmlGpmSampleFree", sample)
        if self._event_set is not None:
            self.nvml.query_uninitialized("nvmlEventSetFree", self._event_set)
        self.gpus, self._event_set = [], None
        self.nvml.shutdown()

    # -- sampling --------------------------------------------------------------------

    def sample(self) -> list[Reading]:
        """One reading per GPU, now."""
        self.nvml.init()
        if self.nvml.generation != self._generation:
            self.discover()
        xids = self._drain_xid()
        return [self._read(gpu, xids) for gpu in self.gpus]

    def _read(self, gpu: _Gpu, xids: dict[int, int]) -> Reading:
        reading = Reading(gpu.index, gpu.uuid, gpu.name)
        if gpu.xid_registered:
            reading.xid_events = xids.get(gpu.index, 0)
        try:
            if gpu.handle is None:
                raise GpuLost("no handle")
            self._read_basic(gpu.handle, reading)
            self._read_counters(gpu.handle, reading)
            self._read_gpm(gpu, reading)
        except GpuLost:
            gpu.gpm_primed = False
            return Reading(gpu.index, gpu.uuid, gpu.name, "lost", xid_events=reading.xid_events)
        return reading

    def _read_basic(self, handle: Any, r: Reading) -> None:
        q, lib = self.nvml.query, self.nvml.pynvml
        util = q("nvmlDeviceGetUtilizationRates", handle)
        if util is not None:
            r.util_gpu_pct, r.util_mem_pct = float(util.gpu), float(util.memory)
        mem = q("nvmlDeviceGetMemoryInfo", handle)
        if mem is not None:
            r.mem_used_bytes, r.mem_total_bytes = int(mem.used), int(mem.total)
        power_mw = q("nvmlDeviceGetPowerUsage", handle)
        r.power_w = power_mw / 1000.0 if power_mw is not None else None
        r.sm_clock_mhz = _float(q("nvmlDeviceGetClockInfo", handle, lib.NVML_CLOCK_SM))
        r.mem_clock_mhz = _float(q("nvmlDeviceGetClockInfo", handle, lib.NVML_CLOCK_MEM))
        procs = q("nvmlDeviceGetComputeRunningProcesses", handle)
        r.compute_processes = len(procs) if procs is not None else None

    def _read_counters(self, handle: Any, r: Reading) -> None:
        q, lib = self.nvml.query, self.nvml.pynvml
        energy = q("nvmlDeviceGetTotalEnergyConsumption", handle)
        r.energy_mj = int(energy) if energy is not None else None
        reasons = q("nvmlDeviceGetCurrentClocksEventReasons", handle)
        if reasons is None:  # drivers before 535 only have the old name
            reasons = q("nvmlDeviceGetCurrentClocksThrottleReasons", handle)
        r.clock_event_reasons = int(reasons) if reasons is not None else None
        counts = [
            q("nvmlDeviceGetTotalEccErrors", handle, kind, lib.NVML_VOLATILE_ECC)
            for kind in (
                lib.NVML_MEMORY_ERROR_TYPE_CORRECTED,
                lib.NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
            )
        ]
        known = [int(c) for c in counts if c is not None]
        r.ecc_errors_total = sum(known) if known else None

    def _read_gpm(self, gpu: _Gpu, r: Reading) -> None:
        if not gpu.gpm_samples:
            return
        current = gpu.gpm_samples[gpu.gpm_next]
        if self.nvml.query("nvmlGpmSampleGet", gpu.handle, current) is None:
            gpu.gpm_primed = False
            return
        previous = gpu.gpm_samples[1 - gpu.gpm_next]
        gpu.gpm_next = 1 - gpu.gpm_next
        if gpu.gpm_primed:
            self._gpm_metrics(gpu, previous, current, r)
        gpu.gpm_primed = True

    def _gpm_metrics(self, gpu: _Gpu, first: Any, second: Any, r: Reading) -> None:
        request = gpu.gpm_request
        request.sample1, request.sample2 = first, second
        if self.nvml.query("nvmlGpmMetricsGet", request) is None:
            return
        success = self.nvml.pynvml.NVML_SUCCESS
        values = [
            float(m.value) if m.nvmlReturn == success else None
            for m in request.metrics[: len(GPM_METRICS)]
        ]
        r.sm_active_pct, r.sm_occupancy_pct, r.tensor_active_pct, r.dram_bw_util_pct = values

    def _drain_xid(self) -> dict[int, int]:
        """XID events waiting in the event set, counted per GPU index."""
        counts: dict[int, int] = {}
        if self._event_set is None:
            return counts
        for _ in range(MAX_EVENTS_PER_DRAIN):
            try:
                event = self.nvml.query("nvmlEventSetWait", self._event_set, 0)
            except GpuLost:
                continue
            if event is None:
                break
            index = self._index_of(event.device)
            log.warning("XID %s on GPU %s", event.eventData, index)
            if index is not None:
                counts[index] = counts.get(index, 0) + 1
        return counts

    def _index_of(self, device: Any) -> int | None:
        address = _address(device)
        for gpu in self.gpus:
            if gpu.handle == device or (address is not None and _address(gpu.handle) == address):
                return gpu.index
        return None


def _float(value: Any) -> float | None:
    return float(value) if value is not None else None


def _address(handle: Any) -> int | None:
    """The pointer value of a ctypes device handle (None for other handle kinds)."""
    if isinstance(handle, ctypes._Pointer):
        return ctypes.cast(handle, ctypes.c_void_p).value
    return None
