"""Peak dense matmul TFLOP/s per accelerator and dtype, as the probes and the warehouse see it.

The facts are rows of the accelerator table (accelerators/table.py): what
`jax.devices()[0].device_kind` says ("NVIDIA H100 80GB HBM3", "TPU v5 lite", ...) and which
canonical accelerator type (`H100-80GB`, `TPU-v5e`, ...) that is, and the vendor's peak *dense*
(no structured sparsity) TFLOP/s per dtype with the document it comes from. This module
flattens the peaks into `PeakSpec` rows, one per (accelerator type, dtype).

No JAX here: the pipeline (MFU marts) imports this module too. `spec_rows()` gives the
table as plain dicts for loading into the warehouse.
"""

from __future__ import annotations

from typing import NamedTuple

from flopledger.accelerators import ACCELERATORS, DTYPES, match_device_kind, peak_tflops

__all__ = [
    "DTYPES",
    "PEAKS",
    "PeakSpec",
    "accelerator_type_of",
    "peak_for_device_kind",
    "peak_spec",
    "peak_tflops",
    "spec_rows",
]


class PeakSpec(NamedTuple):
    accelerator_type: str
    dtype: str  # one of DTYPES
    peak_tflops: float  # dense, no sparsity
    source: str  # URL or document the number comes from


PEAKS: tuple[PeakSpec, ...] = tuple(
    PeakSpec(row.name, peak.dtype, peak.tflops, row.peak_source)
    for row in ACCELERATORS
    if row.peak_source is not None
    for peak in row.peaks
)


def accelerator_type_of(device_kind: str | None) -> str | None:
    """Canonical accelerator type for a JAX device_kind; None for CPUs and unknown kinds."""
    if not device_kind:
        return None
    row = match_device_kind(device_kind)
    return None if row is None else row.name


def peak_spec(accelerator_type: str | None, dtype: str) -> PeakSpec | None:
    """The spec row for a canonical accelerator type and dtype (None: not published/unknown)."""
    if accelerator_type is None:
        return None
    return next(
        (p for p in PEAKS if p.accelerator_type == accelerator_type and p.dtype == dtype), None
    )


def peak_for_device_kind(device_kind: str | None, dtype: str) -> PeakSpec | None:
    """The spec row for what JAX calls the device ("NVIDIA H200", "TPU v5 lite", ...)."""
    return peak_spec(accelerator_type_of(device_kind), dtype)


def spec_rows() -> list[dict[str, object]]:
    """The peak table as rows (accelerator_type, dtype, peak_tflops, source) for SQL loading."""
    return [spec._asdict() for spec in PEAKS]
