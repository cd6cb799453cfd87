"""Timing loop: warm up, calibrate a batch that outlasts timer noise, time several batches.

No JAX here: the loop takes `call` (launch one kernel, return its output) and `sync` (wait
for outputs, e.g. `jax.block_until_ready`), and an injectable `clock` in seconds, so tests
run it with a fake clock.

A *sample* is one batch of `reps` back-to-back calls followed by one sync, divided by `reps`:
asynchronous dispatch keeps the device busy between calls, and the batch lasts at least
`min_sample_s`, so the clock's resolution and the sync latency stay a small part of it.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass

Clock = Callable[[], float]


@dataclass(frozen=True)
class TimingPolicy:
    warmup_calls: int = 2  # untimed calls after compiling (caches, clocks, autotuning)
    min_sample_s: float = 0.02  # a batch lasts at least this long
    budget_s: float = 1.0  # time to spend on the timed samples, per shape
    min_samples: int = 3
    max_samples: int = 50
    max_reps: int = 1000


@dataclass(frozen=True)
class Plan:
    reps: int  # calls per sample
    samples: int


@dataclass(frozen=True)
class Timing:
    best_s: float  # fastest per-call time over the samples
    median_s: float
    worst_s: float
    iterations: int  # timed calls in all
    window_s: float  # wall time of the timed samples, syncs included (the energy window)

    @property
    def spread_pct(self) -> float:
        """(slowest - fastest) / fastest sample, in percent."""
        return 100.0 * (self.worst_s - self.best_s) / self.best_s


def time_batch(
    call: Callable[[], object], sync: Callable[[object], None], clock: Clock, reps: int
) -> float:
    """Seconds for `reps` calls dispatched back to back and then waited for."""
    start_s = clock()
    outputs = [call() for _ in range(reps)]
    sync(outputs)
    return clock() - start_s


def calibrate(
    call: Callable[[], object], sync: Callable[[object], None], clock: Clock, policy: TimingPolicy
) -> Plan:
    """Warm up, time one call, and size the batches and their number to the policy."""
    for _ in range(policy.warmup_calls):
        sync(call())
    one_s = time_batch(call, sync, clock, 1)
    if one_s <= 0:
        return Plan(policy.max_reps, policy.min_samples)
    reps = min(policy.max_reps, max(1, math.ceil(policy.min_sample_s / one_s)))
    samples = math.floor(policy.budget_s / (reps * one_s))
    return Plan(reps, min(policy.max_samples, max(policy.min_samples, samples)))


def measure(
    call: Callable[[], object], sync: Callable[[object], None], clock: Clock, plan: Plan
) -> Timing:
    """Time `plan.samples` batches of `plan.reps` calls; per-call best, median and worst."""
    batches_s = [time_batch(call, sync, clock, plan.reps) for _ in range(plan.samples)]
    per_call_s = [b / plan.reps for b in batches_s]
    return Timing(
        best_s=min(per_call_s),
        median_s=statistics.median(per_call_s),
        worst_s=max(per_call_s),
        iterations=plan.reps * plan.samples,
        window_s=sum(batches_s),
    )
