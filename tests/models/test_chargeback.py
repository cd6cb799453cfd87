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

from models import query_sql
from tests.models.conftest import SETTINGS
from tests.models.rows import gpu, line_item, run

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
    difference = b.rows(query_sql("chargeback_difference"))[0]
    assert difference["effective"] == D("170")
    assert difference["difference"] == 0
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
    assert b.rows(query_sql("chargeback_difference"))[0]["difference"] == 0
