"""The shape of one row of the accelerator table: what is known about one accelerator type."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

DTYPES = ("fp8", "bf16", "fp16", "tf32", "fp32")


class Peak(NamedTuple):
    """The vendor's peak *dense* (no structured sparsity) matmul TFLOP/s in one dtype."""

    dtype: str  # one of DTYPES
    tflops: float


@dataclass(frozen=True)
class NvmlCapture:
    """What NVML reported on a real node of this type (shared/data/nvidia-smi/), idle and busy."""

    mem_total_bytes: int  # usable memory NVML reports, a little under the nominal size
    mem_clock_mhz: int
    sm_clock_max_mhz: int
    sm_clock_idle_mhz: int
    idle_power_w: float
    busy_power_w: float  # under gpu-burn


@dataclass(frozen=True, kw_only=True)
class Accelerator:
    """One accelerator type. None means not recorded (unknown), never zero."""

    name: str  # canonical, shared by bill, jobs, telemetry and probes: "H100-80GB", "TPU-v5p"
    kind: str  # "gpu" or "tpu"
    vendor: str  # "nvidia" or "google"
    sku_pattern: str  # regex on the billing SKU description (case-insensitive)
    alias_pattern: str  # regex on names people and schedulers write (GKE, Slurm, jobs)
    device_name: str | None  # what JAX's device_kind (and, for GPUs, NVML's name) says
    device_pattern: str | None  # regex on device_kind; None: cannot be told apart from another
    memory_bytes: int | None = None  # nominal device memory (HBM)
    board_power_w: float | None = None  # full-load board power (the default power limit)
    peaks: tuple[Peak, ...] = ()
    peak_source: str | None = None  # the document `peaks` come from
    nvml: NvmlCapture | None = None
