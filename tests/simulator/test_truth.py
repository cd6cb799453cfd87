"""The ground truth's arithmetic, worked by hand."""

from __future__ import annotations

from decimal import Decimal

from flopledger.simulator.clock import HOUR_US, hour_overlaps
from flopledger.simulator.truth import allocate, nanos_text, spread, to_usd_nanos

S = 1_000_000  # microseconds per second


def test_spread_over_three_hours() -> None:
    # A row from 00:30 to 02:30: overlaps 1800 s, 3600 s, 1800 s; T = 7200 s.
    # E = 1000: floor(1000*1800/7200) = 250; floor(1000*5400/7200) - 250 = 750 - 250 = 500;
    # floor(1000*7200/7200) - 750 = 250.
    overlaps = [o for _, o in hour_overlaps(HOUR_US // 2, 5 * HOUR_US // 2)]
    assert overlaps == [1800 * S, 3600 * S, 1800 * S]
    assert spread(1000, overlaps) == [250, 500, 250]


def test_spread_negative_floors_toward_minus_infinity() -> None:
    # E = -1001: floor(-250.25) = -251; floor(-750.75) - (-251) = -751 + 251 = -500;
    # -1001 - (-751) = -250. Sum -1001: nothing lost.
    assert spread(-1001, [1800, 3600, 1800]) == [-251, -500, -250]


def test_zero_length_row_goes_to_its_start_hour() -> None:
    assert hour_overlaps(HOUR_US + 5, HOUR_US + 5) == [(HOUR_US, 0)]
    assert spread(7, [0]) == [7]


def test_allocation_shares_paid_and_idle() -> None:
    # Paid P = 8 GPUs x 3600 s; run a holds 4 x 3600 s, run b 4 x 1800 s (in nano-seconds).
    # D = max(P, 14400 + 7200) = 28800: a = floor(1000 * 14400 / 28800) = 500,
    # b = floor(1000 * 7200 / 28800) = 250; unallocated idle = 1000 - 750 = 250.
    p = 8 * 3600 * 10**9
    shares = allocate(1000, p, {"a": 4 * 3600 * 10**9, "b": 4 * 1800 * 10**9})
    assert shares == {"a": 500, "b": 250}


def test_claims_above_paid_are_clipped_pro_rata() -> None:
    # P = 1000, claims 3000 + 3000: D = 6000; E = 1001: floor(1001 * 3000 / 6000) = floor(500.5) = 500 each,
    # 1 nano stays unallocated.
    assert allocate(1001, 1000, {"a": 3000, "b": 3000}) == {"a": 500, "b": 500}
    assert allocate(1001, 0, {}) == {}


def test_usd_conversion_rounds_half_even_to_nanos() -> None:
    # 9.217340 EUR at 0.921734 EUR per USD = 10 USD exactly.
    assert to_usd_nanos(Decimal("9.217340"), Decimal("0.921734")) == 10 * 10**9
    # 2.5 nanos -> 2 and 3.5 nanos -> 4 (half to even).
    assert to_usd_nanos(Decimal("0.0000000025"), Decimal(1)) == 2
    assert to_usd_nanos(Decimal("0.0000000035"), Decimal(1)) == 4
    assert nanos_text(-1_500_000_000) == "-1.500000000"
