"""The timing loop with a fake clock: every number below is worked out by hand."""

from __future__ import annotations

import pytest

from flopledger.probes.timing import Plan, TimingPolicy, calibrate, measure

TICK_S = 2.0**-10  # dyadic, so sums of ticks are exact in binary floating point


class ScriptedDevice:
    """A fake clock plus a fake kernel: each call takes the next scripted number of ticks."""

    def __init__(self, ticks_per_call: list[int]) -> None:
        self.ticks = 0
        self.script = list(ticks_per_call)

    def clock(self) -> float:
        return self.ticks * TICK_S

    def call(self) -> object:
        self.ticks += self.script.pop(0)
        return object()

    def sync(self, _: object) -> None:
        pass


def test_calibrate_then_measure_best_median_spread_by_hand() -> None:
    # warm-up: 2 calls of 100 ticks (untimed); calibration: 1 call of 8 ticks.
    # reps = ceil(min_sample 16 ticks / 8) = 2; samples = floor(budget 80 ticks / (2 * 8)) = 5.
    # Samples (2 calls each): (8+10)/2=9, (8+8)/2=8, (12+12)/2=12, (9+9)/2=9, (10+10)/2=10 ticks/call.
    # best 8, median of [8, 9, 9, 10, 12] = 9, worst 12; spread (12-8)/8 = 50%.
    # iterations 5*2 = 10; window 18+16+24+18+20 = 96 ticks.
    device = ScriptedDevice([100, 100, 8, 8, 10, 8, 8, 12, 12, 9, 9, 10, 10])
    policy = TimingPolicy(
        warmup_calls=2, min_sample_s=16 * TICK_S, budget_s=80 * TICK_S, min_samples=3
    )
    plan = calibrate(device.call, device.sync, device.clock, policy)
    assert plan == Plan(reps=2, samples=5)
    timing = measure(device.call, device.sync, device.clock, plan)
    assert timing.best_s == 8 * TICK_S
    assert timing.median_s == 9 * TICK_S
    assert timing.worst_s == 12 * TICK_S
    assert timing.spread_pct == pytest.approx(50.0)
    assert timing.iterations == 10
    assert timing.window_s == 96 * TICK_S
    assert device.script == []  # every scripted call was made, no more


def test_calibrate_clamps_samples_to_the_policy() -> None:
    # One call of 64 ticks: reps = max(1, ceil(16/64)) = 1; floor(80/64) = 1 sample,
    # raised to min_samples = 3.
    device = ScriptedDevice([1, 64])
    policy = TimingPolicy(
        warmup_calls=1, min_sample_s=16 * TICK_S, budget_s=80 * TICK_S, min_samples=3
    )
    assert calibrate(device.call, device.sync, device.clock, policy) == Plan(reps=1, samples=3)


def test_a_clock_that_does_not_move_gets_the_largest_batches() -> None:
    # A call faster than the clock's resolution reads 0 s: batch max_reps calls, min_samples times.
    device = ScriptedDevice([0, 0])
    policy = TimingPolicy(warmup_calls=1, max_reps=500, min_samples=4)
    assert calibrate(device.call, device.sync, device.clock, policy) == Plan(reps=500, samples=4)
