"""Verification: tolerances by hand, and wrong kernels caught by the real sweep."""

from __future__ import annotations

import math
from datetime import datetime

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from flopledger.probes.dtypes import ProbeDtype, probe_dtype
from flopledger.probes.shapes import Shape
from flopledger.probes.sweep import Sweep, SweepConfig
from flopledger.probes.timing import TimingPolicy
from flopledger.probes.verify import check_block, check_freivalds

FP32 = probe_dtype("fp32")
SHAPE = Shape(64, 48, 32)
FAST = TimingPolicy(
    warmup_calls=1, min_sample_s=0.001, budget_s=0.005, min_samples=1, max_samples=3
)


def test_entry_tolerance_by_hand() -> None:
    # A row [1, 2] times column [3, 4]: ref 11, K = 2, ||ab||_2 = sqrt(3^2 + 8^2) = sqrt(73).
    # fp32: tol = 2 * 2^-24 * 11 + (2^-24 + 8 * (2^-22 + sqrt(2) * 2^-22)) * sqrt(73) ~= 4.11e-5.
    tol = 2 * 2.0**-24 * 11 + (2.0**-24 + 8 * (2.0**-22 + math.sqrt(2) * 2.0**-22)) * math.sqrt(73)
    a, b = np.array([[1.0, 2.0]]), np.array([[3.0], [4.0]])
    inside = check_block(a, b, np.array([[11.0 + 0.5 * tol]]), FP32)
    assert inside.ok and inside.error_ratio == pytest.approx(0.5)
    outside = check_block(a, b, np.array([[11.0 + 2 * tol]]), FP32)
    assert not outside.ok and outside.error_ratio == pytest.approx(2.0)
    assert not check_block(a, b, np.array([[np.nan]]), FP32).ok


def test_freivalds_flags_the_row_past_its_bound() -> None:
    # Row 0 off by 1 with bound 2 (ratio 0.5), row 1 off by 3 with bound 1 (ratio 3): fails at 3.
    verdict = check_freivalds(np.array([10.0, 4.0]), np.array([11.0, 7.0]), np.array([2.0, 1.0]))
    assert not verdict.ok and verdict.error_ratio == pytest.approx(3.0)
    assert check_freivalds(np.array([np.inf]), np.array([1.0]), np.array([1.0])).ok is False


def _sweep_with(kernel_factory: object, dtype: str = "fp32", shape: Shape = SHAPE) -> list:
    config = SweepConfig((dtype,), (shape,), "test-node", policy=FAST, estimate_cpu_peak=False)
    sweep = Sweep(config, now=lambda: datetime(2025, 1, 1), kernel_factory=kernel_factory)  # type: ignore[arg-type]
    return sweep.run()


def _scaled_kernel(_: ProbeDtype) -> object:
    return jax.jit(lambda a, b: jnp.matmul(a, b) * 1.01)  # 1% off everywhere


def _one_bad_entry_kernel(_: ProbeDtype) -> object:
    return jax.jit(lambda a, b: jnp.matmul(a, b).at[7, 5].add(1000.0))  # one entry off by 1000


def _transposed_kernel(_: ProbeDtype) -> object:
    return jax.jit(lambda a, b: jnp.matmul(a, b)[::-1])  # right numbers, wrong places


@pytest.mark.parametrize(
    "kernel_factory", [_scaled_kernel, _one_bad_entry_kernel, _transposed_kernel]
)
def test_a_wrong_kernel_is_a_failed_probe_not_a_speed(kernel_factory: object) -> None:
    (result,) = _sweep_with(kernel_factory)
    assert result.verified is False
    assert (
        result.achieved_tflops is None
        and result.median_tflops is None
        and result.efficiency is None
    )
    assert result.failure


def test_a_wrong_bf16_kernel_is_caught_too() -> None:
    def bf16_off(_: ProbeDtype) -> object:
        return jax.jit(
            lambda a, b: (jnp.matmul(a, b) * 1.1).astype(jnp.bfloat16)
        )  # 10% > bf16 rounding

    (result,) = _sweep_with(bf16_off, dtype="bf16")
    assert not result.verified


def test_an_erroring_kernel_is_a_failed_row_and_the_sweep_goes_on() -> None:
    def broken(_: ProbeDtype) -> object:
        def kernel(a: jax.Array, b: jax.Array) -> jax.Array:
            raise MemoryError("RESOURCE_EXHAUSTED: out of memory")

        return kernel

    (result,) = _sweep_with(broken)
    assert not result.verified
    assert result.failure == "error: MemoryError: RESOURCE_EXHAUSTED: out of memory"
