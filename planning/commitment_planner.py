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

from collections.abc import Callable, Sequence
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from typing import NamedTuple

from flopledger.accelerators.prices import AcceleratorPrice
from flopledger.models import query_sql

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


# --- One plan row per accelerator type, region and term (the commitment_plan table) ---------

TERMS = ("1y", "3y")


def _hours_of(nanos: int) -> float:
    return nanos / HOUR_NANOS


def _series(demand_rows: Sequence[dict]) -> dict[tuple[str, str], list[dict]]:
    found: dict[tuple[str, str], list[dict]] = {}
    for r in demand_rows:
        found.setdefault((r["accelerator_type"], r["region"]), []).append(r)
    return found


def _busy_share(rows: Sequence[dict]) -> float | None:
    held = sum(r["telemetry_allocated_accelerator_hours"] or 0 for r in rows)
    busy = sum(r["busy_accelerator_hours"] or 0 for r in rows)
    return busy / held if held else None


def _scenario_columns(prefix: str, s: Scenario | None) -> dict[str, object]:
    return {
        f"{prefix}accelerators": None if s is None else s.level,
        f"{prefix}cost": None if s is None else s.cost,
        f"{prefix}savings_vs_on_demand": None if s is None else s.savings_vs_on_demand,
        f"{prefix}savings_vs_current": None if s is None else s.savings_vs_current,
    }


def plan_row(
    key: tuple[str, str],
    rows: Sequence[dict],
    price: AcceleratorPrice | None,
    term: str,
    committed_nanos: int,
    days: int,
) -> dict[str, object]:
    """One commitment_plan row. `price` is a price-book row (accelerators/prices.py) or None."""
    current = _money(Decimal(committed_nanos) / HOUR_NANOS)  # accelerators, 9 places
    hours = [
        Hour(
            int(r["demand_accelerator_nanos"]),
            int(r["failed_accelerator_nanos"]),
            None
            if r["allocated_idle_accelerator_nanos"] is None
            else int(r["allocated_idle_accelerator_nanos"]),
        )
        for r in rows
    ]
    p = None
    if price is not None:
        prices = Prices(price.on_demand_per_hour, price.committed(term))
        p = plan(hours, prices, current)
    idle = None if p is None else p.idle_committed
    return {
        "accelerator_type": key[0],
        "region": key[1],
        "term": term,
        "days": days,
        "first_hour": min(r["hour"] for r in rows),
        "last_hour": max(r["hour"] for r in rows),
        "hours": len(rows),
        "paid_accelerator_hours": _hours_of(sum(int(r["paid_accelerator_nanos"]) for r in rows)),
        "queued_accelerator_hours": _hours_of(
            sum(int(r["queued_accelerator_nanos"]) for r in rows)
        ),
        "failed_accelerator_hours": _hours_of(
            sum(int(r["failed_accelerator_nanos"]) for r in rows)
        ),
        "peak_demand_accelerators": _hours_of(max(h.demand_nanos for h in hours)),
        "on_demand_per_hour": None if price is None else price.on_demand_per_hour,
        "committed_per_hour": None if price is None else price.committed(term),
        "price_as_of": None if price is None else price.as_of,
        "price_source": None if price is None else price.source,
        "break_even_utilisation": None if p is None else p.break_even_utilisation,
        "committed_now": current,
        **_scenario_columns("recommended_", None if p is None else p.measured),
        "on_demand_cost": None if p is None else p.measured.on_demand_cost,
        "current_cost": None if p is None else p.measured.current_cost,
        "commitment_utilisation": None if p is None else p.measured.commitment_utilisation,
        "hours_above_share": None if p is None else p.measured.hours_above_share,
        **_scenario_columns("demand_fall_", None if p is None else p.demand_fall),
        **_scenario_columns("without_failed_", None if p is None else p.without_failed),
        "busy_share": _busy_share(rows),
        "busy_accelerators": None if p is None else p.busy_level,
        "idle_committed_accelerators": idle,
        "flag": _flag(price is None, idle, key),
    }


def _flag(no_price: bool, idle: int | None, key: tuple[str, str]) -> str | None:
    if no_price:
        return f"no price for {key[0]} in {key[1]} in the price book: no plan"
    if idle:
        return f"{idle} of the accelerators planned would sit allocated but idle (telemetry)"
    if idle is None:
        return "no telemetry: busy share unknown"
    return None


def plan_rows(
    demand_rows: Sequence[dict],
    in_force_rows: Sequence[dict],
    prices: dict[tuple[str, str], AcceleratorPrice],
    terms: Sequence[str],
    days: int,
) -> list[dict[str, object]]:
    """commitment_plan's rows: every accelerator type and region with demand, for each term.

    demand_rows: the commitment_demand_window query's rows; in_force_rows: commitments_in_force's;
    prices: (accelerator type, region) -> price-book row."""
    committed = {
        (r["accelerator_type"], r["region"]): int(r["committed_nanos"]) for r in in_force_rows
    }
    out = []
    for key, rows in sorted(_series(demand_rows).items()):
        for term in terms:
            out.append(plan_row(key, rows, prices.get(key), term, committed.get(key, 0), days))
    return out


def plan_from_warehouse(
    rows_of: Callable[[str, dict[str, object] | None], list[dict]],
    prices: dict[tuple[str, str], AcceleratorPrice],
    terms: Sequence[str],
    days: int,
) -> list[dict[str, object]]:
    """The plan from a warehouse or reader: `rows_of(sql, params)` runs one named query
    (commitment_demand_window, commitments_in_force) and returns its rows as dicts."""
    demand = rows_of(query_sql("commitment_demand_window"), {"days": days})
    in_force = rows_of(query_sql("commitments_in_force"), None)
    return plan_rows(demand, in_force, prices, terms, days)
