"""The commitment planner's arithmetic: how many accelerators to commit to, from hourly demand.

For a commitment of L accelerators over N hours of demand d_h (accelerator-hours),

    cost(L) = sum over h of [ L x c_commit + max(0, d_h - L) x c_on_demand ]

is convex in L. Its marginal cost, cost(L + 1) - cost(L) = N x c_commit - c_on_demand x
sum_h clamp(d_h - L, 0, 1), rises with L; the plan is the smallest whole L where it is no longer
negative: the demand quantile at 1 - c_commit / c_on_demand (commit to L + 1 only while more
than c_commit / c_on_demand of the hours need it). Ties go to the smaller L: when L and L + 1
cost the same, commit less. c_commit / c_on_demand is the break-even utilisation: a committed
accelerator pays for itself when it is used at least that share of the hours.

Demand is integer accelerator-seconds x 1e9 (commitment_demand_hourly); money is Decimal,
rounded to nano-dollars (half even) only at the end. Plain Python, no I/O: the pipeline, the
CLI and the tests call it the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from typing import NamedTuple

HOUR_NANOS = 3_600 * 10**9  # one accelerator-hour in accelerator-seconds x 1e9
NANO = Decimal("0.000000001")
DEMAND_FALL = (4, 5)  # the what-if: demand x 4/5 (falls 20%)


class Prices(NamedTuple):
    """Per accelerator-hour, in the price book's currency."""

    on_demand: Decimal
    committed: Decimal


class Hour(NamedTuple):
    """One hour of one accelerator type and region (accelerator-seconds x 1e9)."""

    demand_nanos: int  # paid + queued
    failed_nanos: int = 0  # paid accelerator-seconds runs that failed held
    allocated_idle_nanos: int | None = None  # held but not busy; None: no telemetry


class Scenario(NamedTuple):
    level: int  # accelerators to commit to
    cost: Decimal  # cost(level)
    on_demand_cost: Decimal  # cost(0)
    savings_vs_on_demand: Decimal  # cost(0) - cost(level)
    current_cost: Decimal  # cost(today's committed accelerators)
    savings_vs_current: Decimal  # cost(today's) - cost(level)
    commitment_utilisation: Decimal | None  # sum min(d, L) / (N x L); None when L = 0
    hours_above_share: Decimal | None  # share of hours whose demand exceeds L


class Plan(NamedTuple):
    hours: int
    break_even_utilisation: Decimal  # c_commit / c_on_demand
    measured: Scenario
    demand_fall: Scenario  # demand 20% lower
    without_failed: Scenario  # the hours failed runs held not spent
    busy_level: int | None  # the plan for demand less allocated-but-idle hours; None: no telemetry
    idle_committed: int | None  # measured.level - busy_level when positive (flagged), else 0


def _money(value: Decimal) -> Decimal:
    return value.quantize(NANO, rounding=ROUND_HALF_EVEN)


def cost(
    demand: Sequence[int], level: Decimal | int, prices: Prices, unit: int = HOUR_NANOS
) -> Decimal:
    """cost(L) for demand in units of 1/unit accelerator-hour; exact, then nano-rounded."""
    with localcontext() as ctx:
        ctx.prec = 80
        level = Decimal(level)
        covered = level * unit
        excess = sum((max(Decimal(0), d - covered) for d in demand), Decimal(0))
        total = level * len(demand) * prices.committed + excess * prices.on_demand / unit
        return _money(total)


def _marginal_not_negative(demand: Sequence[int], level: int, prices: Prices, unit: int) -> bool:
    """cost(level + 1) - cost(level) >= 0, compared exactly (both sides multiplied by unit)."""
    low = level * unit
    served = sum(min(unit, max(0, d - low)) for d in demand)
    return len(demand) * unit * prices.committed >= served * prices.on_demand


def optimum(demand: Sequence[int], prices: Prices, unit: int = HOUR_NANOS) -> int:
    """The smallest whole L that minimises cost(L) (binary search on the rising marginal)."""
    if not demand or prices.committed >= prices.on_demand:
        return 0
    low, high = 0, -(-max(max(demand), 0) // unit)  # at ceil(max d) the marginal is N c >= 0
    while low < high:
        mid = (low + high) // 2
        if _marginal_not_negative(demand, mid, prices, unit):
            high = mid
        else:
            low = mid + 1
    return low


def scenario(
    demand: Sequence[int], prices: Prices, current_level: Decimal, unit: int = HOUR_NANOS
) -> Scenario:
    level = optimum(demand, prices, unit)
    best, none = cost(demand, level, prices, unit), cost(demand, 0, prices, unit)
    current = cost(demand, current_level, prices, unit)
    used = sum(min(d, level * unit) for d in demand)
    return Scenario(
        level=level,
        cost=best,
        on_demand_cost=none,
        savings_vs_on_demand=none - best,
        current_cost=current,
        savings_vs_current=current - best,
        commitment_utilisation=(
            _ratio(used, len(demand) * level * unit) if level and demand else None
        ),
        hours_above_share=(
            _ratio(sum(1 for d in demand if d > level * unit), len(demand)) if demand else None
        ),
    )


def _ratio(a: int, b: int) -> Decimal:
    return (Decimal(a) / Decimal(b)).quantize(Decimal("0.000001"), rounding=ROUND_HALF_EVEN)


def plan(hours: Sequence[Hour], prices: Prices, current_level: Decimal | int = 0) -> Plan:
    """The plan for one accelerator type and region: the optimum, its cost and savings, the
    break-even utilisation, the two what-ifs, and the busy check."""
    if prices.on_demand <= 0 or prices.committed < 0:
        raise ValueError("prices: on-demand must be positive and committed not negative")
    current = Decimal(current_level)
    demand = [h.demand_nanos for h in hours]
    num, den = DEMAND_FALL
    measured = scenario(demand, prices, current)
    fall = scenario([d * num for d in demand], prices, current, HOUR_NANOS * den)
    without_failed = scenario(
        [max(0, h.demand_nanos - h.failed_nanos) for h in hours], prices, current
    )
    busy_level = None
    if hours and any(h.allocated_idle_nanos is not None for h in hours):
        busy = [max(0, h.demand_nanos - (h.allocated_idle_nanos or 0)) for h in hours]
        busy_level = optimum(busy, prices)
    return Plan(
        hours=len(hours),
        break_even_utilisation=_ratio_decimal(prices.committed, prices.on_demand),
        measured=measured,
        demand_fall=fall,
        without_failed=without_failed,
        busy_level=busy_level,
        idle_committed=None if busy_level is None else max(0, measured.level - busy_level),
    )


def _ratio_decimal(a: Decimal, b: Decimal) -> Decimal:
    return (a / b).quantize(Decimal("0.000001"), rounding=ROUND_HALF_EVEN)
