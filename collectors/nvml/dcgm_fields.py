"""The agent's per-GPU gauges under dcgm-exporter's names, so a Grafana dashboard made for
dcgm-exporter (DCGM_FI_DEV_GPU_UTIL, DCGM_FI_DEV_POWER_USAGE, DCGM_FI_DEV_FB_USED,
DCGM_FI_PROF_PIPE_TENSOR_ACTIVE ...) works against the agent's /metrics unchanged.

Each field is read from the agent's own last NVML reading of the GPU (the one it spools), in
dcgm-exporter's unit: MHz, W, mJ, MiB, % for utilisation, and a ratio in [0, 1] for the
profiling (DCGM_FI_PROF_*) fields, which NVML's GPM gives as percentages. A field the GPU did
not give (no GPM on an A100, a lost GPU) has no sample, as dcgm-exporter leaves it out.

Labels are dcgm-exporter's (its 4.x releases): gpu, UUID, pci_bus_id, device (nvidia<minor>),
modelName, Hostname, and pod and namespace when the kubelet said whose the GPU is
(dcgm-exporter also names the container, which the kubelet's PodResources answer the agent
keeps does not). The names and kinds are checked against dcgm-exporter's own counters files in
tests/fixtures/dcgm_exporter/. Plain Python: collectors/nvml/health.py, prometheus-client's
door, makes the metric families.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from flopledger.collectors.nvml.sampler import Reading

MIB = 2**20


def _ratio(pct: float | None) -> float | None:
    return None if pct is None else pct / 100.0


def _fb_free(r: Reading) -> float | None:
    if r.mem_total_bytes is None or r.mem_used_bytes is None:
        return None
    return (r.mem_total_bytes - r.mem_used_bytes) / MIB


@dataclass(frozen=True)
class Field:
    name: str  # dcgm-exporter's metric name
    kind: str  # its kind in dcgm-exporter's counters files: gauge or counter
    help: str
    value: Callable[[Reading], float | int | None]


FIELDS = (
    Field("DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", lambda r: r.sm_clock_mhz),
    Field("DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).", lambda r: r.mem_clock_mhz),
    Field("DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", lambda r: r.power_w),
    Field(
        "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter",
        "Total energy consumption since boot (in mJ).", lambda r: r.energy_mj,
    ),
    Field("DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", lambda r: r.util_gpu_pct),
    Field("DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %).", lambda r: r.util_mem_pct),
    Field(
        "DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).",
        lambda r: None if r.mem_used_bytes is None else r.mem_used_bytes / MIB,
    ),
    Field("DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).", _fb_free),
    Field(
        "DCGM_FI_PROF_SM_ACTIVE", "gauge",
        "The ratio of cycles an SM has at least 1 warp assigned.", lambda r: _ratio(r.sm_active_pct),
    ),
    Field(
        "DCGM_FI_PROF_SM_OCCUPANCY", "gauge",
        "The ratio of number of warps resident on an SM.", lambda r: _ratio(r.sm_occupancy_pct),
    ),
    Field(
        "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "gauge",
        "Ratio of cycles the tensor (HMMA) pipe is active.", lambda r: _ratio(r.tensor_active_pct),
    ),
    Field(
        "DCGM_FI_PROF_DRAM_ACTIVE", "gauge",
        "Ratio of cycles the device memory interface is active sending or receiving data.",
        lambda r: _ratio(r.dram_bw_util_pct),
    ),
)  # fmt: skip


@dataclass(frozen=True)
class GpuIdentity:
    """What dcgm-exporter labels a GPU's series with."""

    index: int
    uuid: str | None
    pci_bus_id: str | None
    minor: int | None
    model: str | None


def gpu_labels(
    gpu: GpuIdentity, hostname: str, pod: tuple[str, str] | None = None
) -> dict[str, str]:
    """dcgm-exporter's labels of one GPU's series (`pod`: its (namespace, name) when known)."""
    labels = {
        "gpu": str(gpu.index),
        "UUID": gpu.uuid or "",
        "pci_bus_id": gpu.pci_bus_id or "",
        "device": f"nvidia{gpu.minor if gpu.minor is not None else gpu.index}",
        "modelName": gpu.model or "",
        "Hostname": hostname,
    }
    if pod is not None:
        labels |= {"namespace": pod[0], "pod": pod[1]}
    return labels


def series(
    readings: Iterable[Reading], labels: Mapping[int, dict[str, str]]
) -> list[tuple[Field, list[tuple[dict[str, str], float]]]]:
    """Per field, (labels, value) of every GPU that gave it in `readings` (a lost GPU none)."""
    ok = [r for r in readings if r.status == "ok" and r.gpu_index in labels]
    out = []
    for f in FIELDS:
        values = [(labels[r.gpu_index], f.value(r)) for r in ok]
        out.append((f, [(lab, float(v)) for lab, v in values if v is not None]))
    return out
