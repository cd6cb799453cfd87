"""Peak dense matmul TFLOP/s per accelerator and dtype: data, not `if` chains.

Two tables of named tuples:

- `DEVICE_KINDS` maps what `jax.devices()[0].device_kind` says ("NVIDIA H100 80GB HBM3",
  "TPU v5 lite", ...) to a canonical accelerator type, the names shared with billing and
  job metadata (`H100-80GB`, `TPU-v5e`, ...). Patterns are tried in order; first match wins.
- `PEAKS` holds the vendor's peak *dense* (no structured sparsity) TFLOP/s per canonical type
  and dtype, each with the document it comes from.

No JAX here: the pipeline (MFU marts) imports this module too. `spec_rows()` gives the
table as plain dicts for loading into the warehouse.
"""

from __future__ import annotations

import re
from typing import NamedTuple

DTYPES = ("fp8", "bf16", "fp16", "tf32", "fp32")


class DeviceKind(NamedTuple):
    pattern: str  # regex on jax's device_kind (case-insensitive)
    accelerator_type: str  # canonical name shared with billing


class PeakSpec(NamedTuple):
    accelerator_type: str
    dtype: str  # one of DTYPES
    peak_tflops: float  # dense, no sparsity
    source: str  # URL or document the number comes from


# Order matters: more specific first. H100-MEGA-80GB (GCP A3 Mega) is the same H100 SXM chip as
# H100-80GB and reports the same device_kind, so device-kind lookup can only say H100-80GB.
DEVICE_KINDS: tuple[DeviceKind, ...] = (
    DeviceKind(r"\bH100\b", "H100-80GB"),  # "NVIDIA H100 80GB HBM3"
    DeviceKind(r"\bH200\b", "H200-141GB"),  # "NVIDIA H200"
    DeviceKind(r"\bB200\b", "B200-180GB"),  # "NVIDIA B200"
    DeviceKind(
        r"\bA100\b.*80\s?GB", "A100-80GB"
    ),  # "NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB PCIe"
    DeviceKind(r"\bA100\b", "A100-40GB"),  # "NVIDIA A100-SXM4-40GB", "NVIDIA A100-PCIE-40GB"
    DeviceKind(r"\bL4\b", "L4-24GB"),  # "NVIDIA L4"
    DeviceKind(r"\bTPU\s?v6\s?(lite|e)\b", "TPU-v6e"),  # "TPU v6 lite"
    DeviceKind(r"\bTPU\s?v5\s?(lite|e)\b", "TPU-v5e"),  # "TPU v5 lite"
    DeviceKind(r"\bTPU\s?v5(p\b|$)", "TPU-v5p"),  # "TPU v5p", older jax: "TPU v5"
    DeviceKind(r"\bTPU\s?v4\b", "TPU-v4"),  # "TPU v4"
)

_A100 = "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf (SXM, dense)"
_H100 = "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet (H100 SXM, dense = half the sparsity figure)"
_H200 = (
    "https://www.nvidia.com/en-us/data-center/h200/ (H200 SXM, dense = half the sparsity figure)"
)
_B200 = "https://www.nvidia.com/en-us/data-center/hgx/ (HGX B200 per GPU, dense = half the sparsity figure)"
_L4 = (
    "https://www.nvidia.com/en-us/data-center/l4/ (L4 datasheet, dense = half the sparsity figure)"
)
_V4 = "https://cloud.google.com/tpu/docs/v4 (per chip)"
_V5E = "https://cloud.google.com/tpu/docs/v5e (per chip)"
_V5P = "https://cloud.google.com/tpu/docs/v5p (per chip)"
_V6E = "https://cloud.google.com/tpu/docs/v6e (per chip)"


def _nvidia(accelerator_type: str, source: str, **peaks: float) -> tuple[PeakSpec, ...]:
    return tuple(
        PeakSpec(accelerator_type, dtype, tflops, source) for dtype, tflops in peaks.items()
    )


PEAKS: tuple[PeakSpec, ...] = (
    *_nvidia("A100-40GB", _A100, bf16=312.0, fp16=312.0, tf32=156.0, fp32=19.5),
    *_nvidia("A100-80GB", _A100, bf16=312.0, fp16=312.0, tf32=156.0, fp32=19.5),
    *_nvidia("H100-80GB", _H100, fp8=1978.9, bf16=989.4, fp16=989.4, tf32=494.7, fp32=66.9),
    *_nvidia("H100-MEGA-80GB", _H100, fp8=1978.9, bf16=989.4, fp16=989.4, tf32=494.7, fp32=66.9),
    *_nvidia("H200-141GB", _H200, fp8=1978.9, bf16=989.4, fp16=989.4, tf32=494.7, fp32=66.9),
    *_nvidia("B200-180GB", _B200, fp8=4500.0, bf16=2250.0, fp16=2250.0, tf32=1100.0, fp32=75.0),
    *_nvidia("L4-24GB", _L4, fp8=242.5, bf16=121.0, fp16=121.0, tf32=60.0, fp32=30.3),
    PeakSpec("TPU-v4", "bf16", 275.0, _V4),
    PeakSpec("TPU-v5e", "bf16", 197.0, _V5E),
    PeakSpec("TPU-v5p", "bf16", 459.0, _V5P),
    PeakSpec("TPU-v6e", "bf16", 918.0, _V6E),
)

_KINDS = [(re.compile(k.pattern, re.I), k.accelerator_type) for k in DEVICE_KINDS]
_PEAKS = {(p.accelerator_type, p.dtype): p for p in PEAKS}


def accelerator_type_of(device_kind: str | None) -> str | None:
    """Canonical accelerator type for a JAX device_kind; None for CPUs and unknown kinds."""
    if not device_kind:
        return None
    text = device_kind.strip()
    for pattern, accelerator_type in _KINDS:
        if pattern.search(text):
            return accelerator_type
    return None


def peak_spec(accelerator_type: str | None, dtype: str) -> PeakSpec | None:
    """The spec row for a canonical accelerator type and dtype (None: not published/unknown)."""
    if accelerator_type is None:
        return None
    return _PEAKS.get((accelerator_type, dtype))


def peak_tflops(accelerator_type: str | None, dtype: str) -> float | None:
    """Peak dense TFLOP/s of a canonical accelerator type in a dtype; None when unknown."""
    spec = peak_spec(accelerator_type, dtype)
    return None if spec is None else spec.peak_tflops


def peak_for_device_kind(device_kind: str | None, dtype: str) -> PeakSpec | None:
    """The spec row for what JAX calls the device ("NVIDIA H200", "TPU v5 lite", ...)."""
    return peak_spec(accelerator_type_of(device_kind), dtype)


def spec_rows() -> list[dict[str, object]]:
    """The peak table as rows (accelerator_type, dtype, peak_tflops, source) for SQL loading."""
    return [spec._asdict() for spec in PEAKS]
