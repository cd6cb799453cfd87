"""team_chargeback under each shared-cost policy, worked by hand; it always sums to the bill.

One October scenario for every policy. An 8-GPU VM, 80 a GPU-hour row:
  hour 00: llm-1 holds all 8 GPUs -> allocated 80 (llm).
  hour 01: vis-1 holds all 8 GPUs for 30 minutes -> allocated 40 (vision); the other 40 is
           unallocated idle.
  a bucket (storage, no accelerator) 3 and a tax row 7 -> shared cost 10.
Effective 80 + 80 + 3 + 7 = 170 = allocated 120 + idle 40 + shared 10.
A split is done in integer nano-USD, cumulatively over the teams in name order: team i gets
floor(X x W_upto_i / W) - floor(X x W_upto_(i-1) / W), so the parts add up to X exactly and the
remainder nano lands on a later team.
"""

from decimal import Decimal as D

import pytest

from tests.models.conftest import SETTINGS, check_sql
from tests.models.rows import gpu, host, line_item, run

BILLING = [
    gpu("2026-10-01 00", 80),
    gpu("2026-10-01 01", 80),
    line_item(sku="Standard Storage US Multi-region", resource="ckpt", cost="3",
              service="Cloud Storage"),
    line_item(sku="Tax", resource=None, cost="7", cost_type="tax"),
]  # fmt: skip
RUNS = [
    run("llm-1", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z", team="llm"),
    run("vis-1", "2026-10-01T01:00:00Z", "2026-10-01T01:30:00Z", team="vision"),
]


def _chargeback(books, **settings):
    b = books.build(BILLING, RUNS, settings={**SETTINGS, **settings})
    rows = b.rows(
        "SELECT team, policy, allocated_cost, idle_cost_shared, shared_cost, total_cost,"
        " month_unallocated_idle_cost, month_shared_cost FROM team_chargeback ORDER BY team"
    )
    assert b.rows(check_sql("chargeback_sums_to_the_bill")) == []  # charged = effective = 170
    assert sum(r["total_cost"] for r in rows) == D("170")
    for r in rows:
        assert str(r["month_unallocated_idle_cost"]) == "40.000000000"
        assert r["month_shared_cost"] == D("10")
        assert r["total_cost"] == r["allocated_cost"] + r["idle_cost_shared"] + r["shared_cost"]
    return {r["team"]: (r["allocated_cost"], r["idle_cost_shared"], r["shared_cost"],
                        r["total_cost"]) for r in rows}  # fmt: skip


def test_proportional_is_the_default(books):
    # Weights llm 80, vision 40 (W = 120).
    # Idle 40: llm floor(40 x 80/120) = floor(26.6666666666...) = 26.666666666;
    #          vision 40 - 26.666666666 = 13.333333334.
    # Shared 10: llm floor(10 x 80/120) = 6.666666666; vision 10 - 6.666666666 = 3.333333334.
    # Totals: llm 80 + 26.666666666 + 6.666666666 = 113.333333332;
    #         vision 40 + 13.333333334 + 3.333333334 = 56.666666668. Sum 170.
    assert _chargeback(books) == {
        "llm": (D("80"), D("26.666666666"), D("6.666666666"), D("113.333333332")),
        "vision": (D("40"), D("13.333333334"), D("3.333333334"), D("56.666666668")),
    }


def test_even(books):
    # Two teams with runs, weight 1 each: idle 40 -> 20 + 20; shared 10 -> 5 + 5.
    # llm 80 + 20 + 5 = 105; vision 40 + 20 + 5 = 65. Sum 170.
    assert _chargeback(books, chargeback_policy="even") == {
        "llm": (D("80"), D("20"), D("5"), D("105")),
        "vision": (D("40"), D("20"), D("5"), D("65")),
    }


def test_fixed_key_includes_a_team_without_runs(books):
    # Key llm 1, research 1, vision 1 (W = 3; order llm, research, vision).
    # Idle 40: llm floor(40/3) = 13.333333333; research floor(80/3) - 13.333333333
    #          = 26.666666666 - 13.333333333 = 13.333333333; vision 40 - 26.666666666 = 13.333333334.
    # Shared 10: llm 3.333333333; research 6.666666666 - 3.333333333 = 3.333333333;
    #            vision 10 - 6.666666666 = 3.333333334.
    # Totals: llm 96.666666666, research 16.666666666, vision 56.666666668. Sum 170.
    settings = {"chargeback_policy": "fixed", "chargeback_key:llm": "1",
                "chargeback_key:research": "1", "chargeback_key:vision": "1"}  # fmt: skip
    assert _chargeback(books, **settings) == {
        "llm": (D("80"), D("13.333333333"), D("3.333333333"), D("96.666666666")),
        "research": (D("0"), D("13.333333333"), D("3.333333333"), D("16.666666666")),
        "vision": (D("40"), D("13.333333334"), D("3.333333334"), D("56.666666668")),
    }


def test_fixed_key_weights(books):
    # Key llm 3, vision 1 (W = 4): idle 40 -> 30 + 10; shared 10 -> 7.5 + 2.5.
    # llm 80 + 30 + 7.5 = 117.5; vision 40 + 10 + 2.5 = 52.5. Sum 170.
    settings = {"chargeback_policy": "fixed", "chargeback_key:llm": "3",
                "chargeback_key:vision": "1"}  # fmt: skip
    assert _chargeback(books, **settings) == {
        "llm": (D("80"), D("30"), D("7.5"), D("117.5")),
        "vision": (D("40"), D("10"), D("2.5"), D("52.5")),
    }


def test_none_keeps_idle_and_shared_on_rows_of_their_own(books):
    # Nothing is spread: teams pay their runs (80, 40); idle 40 and shared 10 stand apart.
    assert _chargeback(books, chargeback_policy="none") == {
        "__idle__": (D("0"), D("40"), D("0"), D("40")),
        "__shared__": (D("0"), D("0"), D("10"), D("10")),
        "llm": (D("80"), D("0"), D("0"), D("80")),
        "vision": (D("40"), D("0"), D("0"), D("40")),
    }


@pytest.mark.parametrize("policy", ["proportional", "even"])
def test_a_month_without_runs_still_sums_to_its_bill(books, policy):
    # No run at all: nothing carries a weight, so the 160 of GPU idle and the 10 shared stand
    # on __idle__ and __shared__ rows.
    b = books.build(BILLING, [], settings={**SETTINGS, "chargeback_policy": policy})
    rows = {r["team"]: r["total_cost"] for r in b.rows("SELECT * FROM team_chargeback")}
    assert rows == {"__idle__": D("160"), "__shared__": D("10")}
    assert b.rows(check_sql("chargeback_sums_to_the_bill")) == []


# Commitments and reservations (docs/allocation.md): one October hour.
#   row-0 fee 120 for a 12-GPU H100 commitment cud-h100-12 (43,200 GPU-s).
#   row-1 vm-1's 8 GPUs 98 with a CUD credit -98 naming it (effective 0, 28,800 GPU-s used):
#         fee share 120 x 28,800 / 43,200 = 80; unused commitment 40.
#   row-2 vm-1's host 8. llm-1 holds vm-1 all hour: 0 + 8 + 80 = 88 (llm).
#   row-3 unused reservation res-h100 80 (reserved, no VM consumed it).
#   row-4 tax 5: shared.
#   row-5 vm-2's 8 GPUs 80 on demand; vis-1 holds them 30 min: 40 (vision), idle 40.
# Effective 120 + 0 + 8 + 80 + 5 + 80 = 293 = allocated 128 + idle 40 + unused commitment 40
#   + unused reservation 80 + shared 5 (before: shared 125, the unused kinds hidden in it).
FEE_SKU = "Commitment v1: Nvidia H100 80GB GPU in Americas for 1 Year"
RESERVED = {"compute.googleapis.com/is_unused_reservation": "true",
            "compute.googleapis.com/reservation_name": "res-h100"}  # fmt: skip
COMMITTED = [
    line_item(sku=FEE_SKU, cost=120, resource="cud-h100-12", accelerator_type="H100-80GB",
              accelerator_seconds=43200, usage_amount=43200, usage_unit="seconds"),
    gpu("2026-10-01 00", 98, typed_credits=((-98, "COMMITTED_USAGE_DISCOUNT", "cud-h100-12"),)),
    host("2026-10-01 00", 8),
    gpu("2026-10-01 00", 80, resource="res-h100", system_labels=RESERVED),
    line_item(sku="Tax", resource=None, cost="5", cost_type="tax"),
    gpu("2026-10-01 00", 80, resource="vm-2"),
]  # fmt: skip
COMMITTED_RUNS = [
    run("llm-1", team="llm"),
    run("vis-1", end="2026-10-01T00:30:00Z", resource="vm-2", team="vision"),
]


def _committed(books, **settings):
    b = books.build(COMMITTED, COMMITTED_RUNS, settings={**SETTINGS, **settings})
    rows = b.rows(
        "SELECT team, allocated_cost, idle_cost_shared, unused_commitment_shared,"
        " unused_reservation_shared, shared_cost, total_cost, month_unallocated_idle_cost,"
        " month_unused_commitment_cost, month_unused_reservation_cost, month_shared_cost"
        " FROM team_chargeback ORDER BY team"
    )
    assert b.rows(check_sql("chargeback_sums_to_the_bill")) == []  # charged = effective = 293
    for r in rows:
        assert (r["month_unallocated_idle_cost"], r["month_unused_commitment_cost"],
                r["month_unused_reservation_cost"], r["month_shared_cost"]) == (
            D("40"), D("40"), D("80"), D("5"))  # fmt: skip
        assert r["total_cost"] == (r["allocated_cost"] + r["idle_cost_shared"]
                                   + r["unused_commitment_shared"]
                                   + r["unused_reservation_shared"] + r["shared_cost"])  # fmt: skip
    assert b.rows("SELECT check_name FROM books WHERE difference <> 0") == []
    return {r["team"]: tuple(r[k] for k in ("allocated_cost", "idle_cost_shared",
            "unused_commitment_shared", "unused_reservation_shared", "shared_cost",
            "total_cost")) for r in rows}  # fmt: skip


def test_unused_commitment_and_reservation_are_spread_as_idle_not_shared(books):
    # Proportional, weights llm 88, vision 40 (W = 128):
    #   idle 40:               llm 40 x 88/128 = 27.5,   vision 12.5
    #   unused commitment 40:  llm 27.5,                 vision 12.5
    #   unused reservation 80: llm 80 x 88/128 = 55,     vision 25
    #   shared 5:              llm 5 x 88/128 = 3.4375,  vision 1.5625
    # llm 88 + 27.5 + 27.5 + 55 + 3.4375 = 201.4375; vision 40 + 12.5 + 12.5 + 25 + 1.5625
    # = 91.5625. Sum 293.
    assert _committed(books) == {
        "llm": (D("88"), D("27.5"), D("27.5"), D("55"), D("3.4375"), D("201.4375")),
        "vision": (D("40"), D("12.5"), D("12.5"), D("25"), D("1.5625"), D("91.5625")),
    }


def test_none_keeps_unused_commitment_and_reservation_on_rows_of_their_own(books):
    assert _committed(books, chargeback_policy="none") == {
        "__idle__": (D("0"), D("40"), D("0"), D("0"), D("0"), D("40")),
        "__shared__": (D("0"), D("0"), D("0"), D("0"), D("5"), D("5")),
        "__unused_commitment__": (D("0"), D("0"), D("40"), D("0"), D("0"), D("40")),
        "__unused_reservation__": (D("0"), D("0"), D("0"), D("80"), D("0"), D("80")),
        "llm": (D("88"), D("0"), D("0"), D("0"), D("0"), D("88")),
        "vision": (D("40"), D("0"), D("0"), D("0"), D("0"), D("40")),
    }


def test_a_run_labelled_row_brings_its_commitment_fee_share(books):
    # row-0 fee 120 (12 GPUs); row-1 vm-1's 8 GPUs 98, credit -98 naming the commitment,
    # labelled run_id=llm-1: a direct row, its fee share 120 x 28,800 / 43,200 = 80 goes to
    # llm-1 with it (cost_per_run 80). Unused commitment 40.
    # Proportional: llm 80 + unused commitment 40 = 120 (before: llm 0, __shared__ 120).
    billing = [
        COMMITTED[0],
        gpu("2026-10-01 00", 98, labels={"run_id": "llm-1"},
            typed_credits=((-98, "COMMITTED_USAGE_DISCOUNT", "cud-h100-12"),)),
    ]  # fmt: skip
    b = books.build(billing, [run("llm-1", team="llm")])
    assert b.run_cost("llm-1") == D("80")
    rows = b.rows("SELECT team, allocated_cost, unused_commitment_shared, shared_cost,"
                  " total_cost FROM team_chargeback")  # fmt: skip
    assert rows == [{"team": "llm", "allocated_cost": D("80"),
                     "unused_commitment_shared": D("40"), "shared_cost": D("0"),
                     "total_cost": D("120")}]  # fmt: skip
    assert b.rows(check_sql("chargeback_sums_to_the_bill")) == []
