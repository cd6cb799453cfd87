"""Is the product right? Checked two ways against references computed another way.

1. A block of sampled entries (rows x columns of C) against a float64 numpy product of the
   same (already rounded) inputs, with a tight, dtype-aware tolerance per entry.
2. Freivalds' check over every entry: C x against A (B x) for a random +-1 vector x, with
   matrix-vector products (not the GEMM under test). It catches gross corruption (NaN, Inf,
   flipped exponent bits) anywhere in C; the sampled block catches small systematic errors.

Tolerances (u = unit roundoff; |ab| and ||ab|| over the K products behind an entry):
    entry:  2 u_out |ref| + (u_out + 8 (u_in + sqrt(K) u_acc)) ||ab||_2
            (the u_out ||ab||_2 term allows split-K partial sums stored in the output type)
    row i:  the same with sums, plus the float32 GEMV's own error (see `freivalds_bound`).
No JAX here: the device-side gathers and GEMVs live in `probes.kernels`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from flopledger.probes.dtypes import ProbeDtype

GEMV_ROUNDOFF = 2.0**-22  # float32 GEMV at HIGHEST precision (bf16x6 on TPU is a little looser)


@dataclass(frozen=True)
class Verdict:
    ok: bool
    error_ratio: float | None  # largest |error| / tolerance seen (< 1 passes); None if not finite
    reason: str | None  # why it failed; None when ok


def entry_tolerance(
    a_rows: np.ndarray, b_cols: np.ndarray, ref: np.ndarray, dtype: ProbeDtype
) -> np.ndarray:
    """Per-entry tolerance for C[rows][:, cols] (a_rows: r x K, b_cols: K x c, float64)."""
    k = a_rows.shape[1]
    l2 = np.sqrt((a_rows * a_rows) @ (b_cols * b_cols))
    scale = dtype.output_roundoff + 8.0 * (
        dtype.input_roundoff + math.sqrt(k) * dtype.accumulate_roundoff
    )
    return 2.0 * dtype.output_roundoff * np.abs(ref) + scale * l2 + np.finfo(np.float64).tiny


def check_block(
    a_rows: np.ndarray, b_cols: np.ndarray, c_block: np.ndarray, dtype: ProbeDtype
) -> Verdict:
    """Sampled entries of C against the float64 product of the same input rows and columns."""
    if not np.all(np.isfinite(c_block)):
        return Verdict(False, None, "non-finite values in the sampled entries")
    ref = a_rows @ b_cols
    ratio = float(np.max(np.abs(c_block - ref) / entry_tolerance(a_rows, b_cols, ref, dtype)))
    if ratio > 1.0:
        return Verdict(
            False, ratio, f"sampled entries off by up to {ratio:.3g}x the {dtype.name} tolerance"
        )
    return Verdict(True, ratio, None)


def freivalds_bound(
    abs_cx: np.ndarray, abs_abx: np.ndarray, k: int, n: int, dtype: ProbeDtype
) -> np.ndarray:
    """Per-row tolerance for |C x - A (B x)|, from |C| |x| and |A| (|B| |x|)."""
    product_scale = dtype.output_roundoff + 8.0 * (
        dtype.input_roundoff + math.sqrt(k) * dtype.accumulate_roundoff
    )
    gemv_scale = 8.0 * math.sqrt(k + n) * GEMV_ROUNDOFF
    output_scale = 2.0 * dtype.output_roundoff + 8.0 * math.sqrt(n) * GEMV_ROUNDOFF
    return (
        output_scale * abs_cx + (product_scale + gemv_scale) * abs_abx + np.finfo(np.float64).tiny
    )


def check_freivalds(cx: np.ndarray, abx: np.ndarray, bound: np.ndarray) -> Verdict:
    """Every row of C x against A (B x), within the per-row bound."""
    if not (np.all(np.isfinite(cx)) and np.all(np.isfinite(abx))):
        return Verdict(False, None, "non-finite values in C (Freivalds check)")
    ratio = float(np.max(np.abs(cx - abx) / bound))
    if ratio > 1.0:
        return Verdict(
            False, ratio, f"Freivalds check: a row of C off by {ratio:.3g}x its tolerance"
        )
    return Verdict(True, ratio, None)


def combine(*verdicts: Verdict) -> Verdict:
    """Passes only if all pass; the worst ratio, and the first failure's reason."""
    failed = [v for v in verdicts if not v.ok]
    ratios = [v.error_ratio for v in verdicts]
    worst = None if any(r is None for r in ratios) else max(r for r in ratios if r is not None)
    if failed:
        return Verdict(False, worst, failed[0].reason)
    return Verdict(True, worst, None)
