"""The planner's arithmetic on a hand-worked demand curve (planning/commitment_planner.py).

Ten hours of demand, accelerator-hours: d = 0, 1, 2, 2, 3, 3, 3, 4, 5, 7.5 (sum 30.5).
Prices: on demand 10, committed 6 per accelerator-hour: break-even utilisation 6/10 = 0.6,
so L is the demand quantile at 0.4.

Marginal cost of L -> L+1: N c_commit - c_od x sum_h clamp(d_h - L, 0, 1) = 60 - 10 x S(L):
  S(0) = 9 (every hour but the first)           -> -30: commit more
  S(1) = 8 (the hours with d >= 2)              -> -20: commit more
  S(2) = 6 (the hours with d >= 3)              ->   0: a tie: L = 2 and L = 3 cost the same;
                                                        ties go to the smaller L: L = 2.
cost(2) = 2 x 10 x 6 + 10 x (1+1+1+2+3+5.5 = 13.5) = 120 + 135 = 255
cost(3) = 3 x 10 x 6 + 10 x (1+2+4.5 = 7.5)       = 180 +  75 = 255   (the tie)
cost(0) = 10 x 30.5 = 305: saving against all on-demand 305 - 255 = 50
Today 5 accelerators are committed: cost(5) = 300 + 10 x 2.5 = 325: saving 325 - 255 = 70.
Utilisation of the 2 committed: sum min(d, 2) = 0+1+2x8 = 17 of 20 = 0.85; hours above 2: 6/10.

Demand 20% lower: d' = 0, .8, 1.6, 1.6, 2.4, 2.4, 2.4, 3.2, 4, 6 (sum 24.4)
  S'(1) = .6+.6+6 = 7.2 -> 60 - 72 < 0;  S'(2) = .4x3 + 1.2->1, 2->1, 4->1 = 4.2 -> 18 >= 0: L = 2
  cost'(2) = 120 + 10 x (.4+.4+.4+1.2+2+4 = 8.4) = 204; cost'(0) = 244: saving 40;
  cost'(5) = 300 + 10 x 1 = 310: saving against today 106.

Failed runs held 2, 2 and 5.5 accelerator-hours in hours 3, 4 and 10:
  d'' = 0, 1, 0, 0, 3, 3, 3, 4, 5, 2 (sum 21)
  S''(0) = 7 -> -10;  S''(1) = 6 (d'' >= 2) -> 0: L = 1
  cost''(1) = 60 + 10 x (2+2+2+3+4+1 = 14) = 200; cost''(0) = 210: saving 10;
  cost''(5) = 300 (no hour above 5): saving against today 100.

Busy check: hours 3 to 7 had 1 accelerator-hour allocated but idle each:
  busy demand b = 0, 1, 1, 1, 2, 2, 2, 4, 5, 7.5: S_b(0) = 9 -> -30; S_b(1) = 6 -> 0: L_busy = 1,
  so 2 - 1 = 1 committed accelerator would sit allocated but idle: flagged.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from flopledger.planning.commitment_planner import HOUR_NANOS, Hour, Prices, cost, optimum, plan

H = HOUR_NANOS
DEMAND_HOURS = [Decimal(x) for x in ("0", "1", "2", "2", "3", "3", "3", "4", "5", "7.5")]
DEMAND = [int(d * H) for d in DEMAND_HOURS]
FAILED = [0, 0, 2 * H, 2 * H, 0, 0, 0, 0, 0, int(Decimal("5.5") * H)]
IDLE = [0, 0, H, H, H, H, H, 0, 0, 0]
PRICES = Prices(on_demand=Decimal(10), committed=Decimal(6))


def _hours() -> list[Hour]:
    return [Hour(d, f, i) for d, f, i in zip(DEMAND, FAILED, IDLE, strict=True)]


def test_cost_of_a_level_by_hand() -> None:
    assert cost(DEMAND, 0, PRICES) == Decimal(305)
    assert cost(DEMAND, 2, PRICES) == Decimal(255)
    assert cost(DEMAND, 3, PRICES) == Decimal(255)  # the tie
    assert cost(DEMAND, 5, PRICES) == Decimal(325)


def test_optimum_takes_the_smaller_of_a_tie() -> None:
    assert optimum(DEMAND, PRICES) == 2


def test_measured_plan() -> None:
    p = plan(_hours(), PRICES, current_level=5)
    assert p.hours == 10
    assert p.break_even_utilisation == Decimal("0.6")
    m = p.measured
    assert (m.level, m.cost, m.on_demand_cost) == (2, Decimal(255), Decimal(305))
    assert (m.savings_vs_on_demand, m.current_cost, m.savings_vs_current) == (
        Decimal(50),
        Decimal(325),
        Decimal(70),
    )
    assert m.commitment_utilisation == Decimal("0.85")
    assert m.hours_above_share == Decimal("0.6")


def test_demand_falls_twenty_percent() -> None:
    f = plan(_hours(), PRICES, current_level=5).demand_fall
    assert (f.level, f.cost, f.on_demand_cost, f.savings_vs_on_demand) == (
        2,
        Decimal(204),
        Decimal(244),
        Decimal(40),
    )
    assert (f.current_cost, f.savings_vs_current) == (Decimal(310), Decimal(106))


def test_hours_lost_to_failed_runs_not_spent() -> None:
    w = plan(_hours(), PRICES, current_level=5).without_failed
    assert (w.level, w.cost, w.on_demand_cost, w.savings_vs_on_demand) == (
        1,
        Decimal(200),
        Decimal(210),
        Decimal(10),
    )
    assert (w.current_cost, w.savings_vs_current) == (Decimal(300), Decimal(100))


def test_committing_to_allocated_idle_capacity_is_flagged() -> None:
    p = plan(_hours(), PRICES, current_level=5)
    assert (p.busy_level, p.idle_committed) == (1, 1)


def test_without_telemetry_the_busy_check_is_unknown() -> None:
    p = plan([Hour(d) for d in DEMAND], PRICES)
    assert (p.busy_level, p.idle_committed) == (None, None)
    # Today nothing is committed: the current cost is all on demand.
    assert p.measured.current_cost == Decimal(305)


def test_a_commitment_dearer_than_on_demand_is_never_planned() -> None:
    p = plan(_hours(), Prices(on_demand=Decimal(6), committed=Decimal(6)))
    assert p.measured.level == 0
    assert p.measured.commitment_utilisation is None


def test_fractional_prices_are_exact_to_the_nano_dollar() -> None:
    # One hour at 1/3 accelerator-hour, on demand 1: cost(0) = 1/3 = 0.333333333 (half even).
    assert cost([H // 3], 0, Prices(Decimal(1), Decimal("0.5"))) == Decimal("0.333333333")


def test_no_hours_plan_nothing() -> None:
    p = plan([], PRICES)
    assert p.measured.level == 0
    assert p.measured.cost == Decimal(0)


def test_bad_prices_are_one_clear_error() -> None:
    with pytest.raises(ValueError, match="on-demand must be positive"):
        plan(_hours(), Prices(Decimal(0), Decimal(0)))
