"""Does the probe measure the ceiling or itself? Probe best vs plain numpy best, fp32, one process.

Both multiply the same fp32 shapes on the same CPU, so both should reach the same BLAS-class
ceiling: a ratio (probe / numpy) far below 1 means the harness is timing its own overhead.
numpy is timed here with a bare `perf_counter` loop, not the probe's timing code, so the two
share nothing but the machine. A third column times the same jitted JAX matmul with a bare
loop: probe / bare jax isolates the harness (should be ~1), probe / numpy adds the
difference between XLA:CPU's GEMM and numpy's BLAS. Rounds alternate (numpy, probe, numpy, probe, ...) so slow
drift of a shared machine hits both.

    .venv/bin/python benchmarks/probe_vs_numpy.py [--sizes 1024,2048,4096] [--rounds 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from flopledger.probes.shapes import Shape  # noqa: E402
from flopledger.probes.sweep import Sweep, SweepConfig  # noqa: E402
from flopledger.probes.timing import TimingPolicy  # noqa: E402


def numpy_best_gflops(shape: Shape, seconds: float) -> float:
    """Best of bare `a @ b` calls for about `seconds` (at least 3 calls)."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((shape.m, shape.k), dtype=np.float32)
    b = rng.standard_normal((shape.k, shape.n), dtype=np.float32)
    a @ b  # warm-up
    best_s, spent_s, calls = float("inf"), 0.0, 0
    while calls < 3 or spent_s < seconds:
        start = time.perf_counter()
        a @ b
        elapsed = time.perf_counter() - start
        best_s, spent_s, calls = min(best_s, elapsed), spent_s + elapsed, calls + 1
    return shape.flops / best_s / 1e9


def bare_jax_best_gflops(shape: Shape, seconds: float) -> float:
    """Best of bare jitted `a @ b` calls (HIGHEST precision), each waited for: no probe harness."""
    import jax
    import jax.numpy as jnp

    rng = np.random.default_rng(0)
    a = jnp.asarray(rng.standard_normal((shape.m, shape.k), dtype=np.float32))
    b = jnp.asarray(rng.standard_normal((shape.k, shape.n), dtype=np.float32))
    f = jax.jit(lambda x, y: jnp.matmul(x, y, precision=jax.lax.Precision.HIGHEST))
    f(a, b).block_until_ready()  # compile and warm up
    best_s, spent_s, calls = float("inf"), 0.0, 0
    while calls < 3 or spent_s < seconds:
        start = time.perf_counter()
        f(a, b).block_until_ready()
        elapsed = time.perf_counter() - start
        best_s, spent_s, calls = min(best_s, elapsed), spent_s + elapsed, calls + 1
    return shape.flops / best_s / 1e9


def probe_best_gflops(shape: Shape, seconds: float) -> float:
    """The probe's best (verified) on one shape, fp32, through the real sweep."""
    config = SweepConfig(
        ("fp32",), (shape,), "bench", policy=TimingPolicy(budget_s=seconds), estimate_cpu_peak=False
    )
    (result,) = Sweep(config).run()
    if not result.verified or result.achieved_tflops is None:
        raise SystemExit(f"probe failed on {shape}: {result.failure}")
    return result.achieved_tflops * 1000.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1024,2048,4096", help="cube sizes (fp32)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per size")
    parser.add_argument("--seconds", type=float, default=2.0, help="timed seconds per measurement")
    args = parser.parse_args()
    print(
        f"{'shape':>16} {'numpy':>8} {'bare jax':>9} {'probe':>8}  GFLOP/s   {'probe/numpy':>11} {'probe/bare jax':>14}"
    )
    ratios = []
    for size in (int(s) for s in args.sizes.split(",")):
        shape = Shape(size, size, size)
        numpy_best = bare_best = probe_best = 0.0
        for _ in range(args.rounds):
            numpy_best = max(numpy_best, numpy_best_gflops(shape, args.seconds))
            bare_best = max(bare_best, bare_jax_best_gflops(shape, args.seconds))
            probe_best = max(probe_best, probe_best_gflops(shape, args.seconds))
        ratios.append(probe_best / numpy_best)
        print(
            f"{str(shape):>16} {numpy_best:>8.1f} {bare_best:>9.1f} {probe_best:>8.1f}            "
            f"{ratios[-1]:>11.3f} {probe_best / bare_best:>14.3f}",
            flush=True,
        )
    print(f"lowest probe/numpy ratio: {min(ratios):.3f} (target >= 0.9)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
