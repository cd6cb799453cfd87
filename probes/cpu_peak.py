"""A CPU's peak, estimated: the best numpy/BLAS fp32 `a @ b` reaches on the same shapes.

CPUs have no vendor TFLOP/s figure we can look up by device kind, so the probe measures
the ceiling another library reaches on this node and reports efficiency against that.
No JAX here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from flopledger.probes.shapes import Shape
from flopledger.probes.timing import Clock, TimingPolicy, calibrate, measure


def _no_sync(_: object) -> None:
    """numpy returns finished results: nothing to wait for."""


def numpy_tflops(shape: Shape, clock: Clock, policy: TimingPolicy, seed: int = 0) -> float:
    """Best fp32 TFLOP/s of numpy's `a @ b` on one shape."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((shape.m, shape.k), dtype=np.float32)
    b = rng.standard_normal((shape.k, shape.n), dtype=np.float32)
    plan = calibrate(lambda: a @ b, _no_sync, clock, policy)
    timing = measure(lambda: a @ b, _no_sync, clock, plan)
    return shape.flops / timing.best_s / 1e12


def numpy_peak_tflops(shapes: Sequence[Shape], clock: Clock, policy: TimingPolicy) -> float:
    """The best fp32 TFLOP/s numpy reaches over the shapes."""
    return max(numpy_tflops(shape, clock, policy) for shape in shapes)


def cpu_peak_source(peak_tflops: float, shape_count: int) -> str:
    """The peak_source text for an estimated CPU peak."""
    return (
        f"estimate: best numpy/BLAS fp32 a @ b on this node over the same {shape_count} shapes "
        f"({peak_tflops:.4f} TFLOP/s); CPUs have no spec-sheet peak here"
    )
