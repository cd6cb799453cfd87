"""Commitments and reservations on hand-worked scenarios (docs/allocation.md, "Commitments").

A commitment fee row (`Commitment v1: ...`) is a commitment, not a resource: its usage is the
committed quantity (12 GPUs for an hour = 43,200 GPU-seconds). Each hour, a resource-hour whose
rows got the commitment's committed-use credit takes fee x (its credited GPU-seconds /
max(committed, all credited)), rounded toward minus infinity; the rest is unused commitment.
Usage rows here are 8-GPU H100 VMs for an hour (28,800 GPU-seconds) at 98 on demand, and a
resource-based CUD credit takes the covered usage's whole on-demand cost off (-98).
"""

from decimal import Decimal as D
from typing import Any

from tests.models.rows import gpu, host, line_item, run

FEE_SKU = "Commitment v1: Nvidia H100 80GB GPU in Americas for 1 Year"
UNUSED = "compute.googleapis.com/is_unused_reservation"


def fee(hour: str, cost: Any, gpus: int = 12, hours: int = 1, end_hour: str | None = None,
        name: str | None = "cud-h100-12", sku: str = FEE_SKU) -> dict[str, Any]:  # fmt: skip
    """A commitment's fee row: `gpus` x 3,600 x `hours` GPU-seconds committed."""
    seconds = gpus * 3600 * hours
    return line_item(sku=sku, hour=hour, end_hour=end_hour, cost=cost, resource=name,
                     accelerator_type="H100-80GB", accelerator_seconds=seconds,
                     usage_amount=seconds, usage_unit="seconds")  # fmt: skip


def cud(amount: Any, name: str = "cud-h100-12") -> tuple[Any, str, str]:
    """A resource-based committed-use credit whose id names the commitment."""
    return (amount, "COMMITTED_USAGE_DISCOUNT", name)


def assert_books_close(b) -> None:
    checks = b.rows("SELECT check_name, difference FROM books")
    assert len(checks) == 5  # four totals, and one provider (gcp) on its own
    assert all(c["difference"] == 0 for c in checks), checks


def hourly(b, hour: str) -> dict[str, Any]:
    return b.rows(
        "SELECT * FROM commitment_hourly WHERE hour = CAST(? AS TIMESTAMP)", [hour + ":00:00"]
    )[0]


def unused(b) -> list[tuple[str, str, str, str, Any, D]]:
    return [
        (
            str(r["hour"]),
            r["idle_kind"],
            r["project_id"],
            r["name"],
            r["unused_accelerator_hours"],
            r["unused_cost"],
        )  # fmt: skip
        for r in b.rows("SELECT * FROM unused_capacity ORDER BY hour, idle_kind, name")
    ]


def test_a_fee_shared_by_two_vms_in_one_hour(books):
    # A 24-GPU commitment (86,400 GPU-s), fee 100 for hour 00. vm-1 uses 8 GPUs (28,800 s),
    # its credit names the commitment; vm-2 uses 16 GPUs (57,600 s), its credit names no
    # commitment ("Committed Usage Discount: GPU"), so it matches by account, region and type.
    # vm-1: floor(100e9 x 28,800 / 86,400) = floor(33,333,333,333.3) nanos = 33.333333333
    # vm-2: floor(100e9 x 57,600 / 86,400) = floor(66,666,666,666.6) nanos = 66.666666666
    # Unused commitment: 100 - 99.999999999 = 0.000000001 (the rounding remainder).
    # The run holds vm-1 all hour: 0 (98 - 98) + 33.333333333 + host 8 = 41.333333333.
    # Nobody holds vm-2: its 66.666666666 is vm-2's unallocated idle.
    billing = [
        fee("2026-10-01 00", 100, gpus=24),
        gpu("2026-10-01 00", 98, typed_credits=(cud(-98),)),
        host("2026-10-01 00", 8),
        gpu("2026-10-01 00", 196, resource="vm-2", seconds=57600,
            typed_credits=((-196, "COMMITTED_USAGE_DISCOUNT", "Committed Usage Discount: GPU"),)),
    ]  # fmt: skip
    b = books.build(billing, [run("r", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z")])
    assert b.run_cost("r") == D("41.333333333")
    assert b.idle("vm-2", "2026-10-01 00:00:00")["unallocated_idle_cost"] == D("66.666666666")
    shares = b.rows("SELECT resource_name, fee_share_nanos FROM commitment_allocation ORDER BY 1")
    assert shares == [
        {"resource_name": "vm-1", "fee_share_nanos": 33_333_333_333},
        {"resource_name": "vm-2", "fee_share_nanos": 66_666_666_666},
    ]
    assert hourly(b, "2026-10-01 00")["unused_nanos"] == 1
    # The fee row is not a machine: no idle 24-GPU resource named after the commitment.
    assert b.rows("SELECT * FROM idle_capacity WHERE resource_name = 'cud-h100-12'") == []
    assert unused(b) == [("2026-10-01 00:00:00", "unused_commitment", "ml-prod", "cud-h100-12",
                          0.0, D("0.000000001"))]  # fmt: skip
    assert_books_close(b)


def test_a_12_gpu_commitment_used_by_8_gpus_then_not_at_all(books):
    # One fee row for hours 00-02: 240 for 12 GPUs x 2 h = 86,400 GPU-s, spread 120 and
    # 43,200 s per hour. Hour 00: vm-1's 8 GPUs use it: 120 x 28,800 / 43,200 = 80;
    # unused 40 (4 GPU-hours). Hour 01: no usage: unused 120 (12 GPU-hours).
    # The run held vm-1 for hour 00: 0 + 80 = 80 (before: 0, and the fee read as a
    # 12-GPU idle machine).
    billing = [
        fee("2026-10-01 00", 240, hours=2, end_hour="2026-10-01 02"),
        gpu("2026-10-01 00", 98, typed_credits=(cud(-98),)),
    ]
    b = books.build(billing, [run("r", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z")])
    assert b.run_cost("r") == D("80")
    assert unused(b) == [
        ("2026-10-01 00:00:00", "unused_commitment", "ml-prod", "cud-h100-12", 4.0, D("40")),
        ("2026-10-01 01:00:00", "unused_commitment", "ml-prod", "cud-h100-12", 12.0, D("120")),
    ]
    day = b.rows("SELECT * FROM commitment_utilisation")
    assert len(day) == 1
    d = day[0]
    # Committed 12 x 2 = 24 GPU-hours; used 8; 8 / 24 = 33.33%; saved 98 on demand for 240.
    assert (d["committed_accelerator_hours"], d["used_accelerator_hours"], d["hours_used"]) == (
        24.0, 8.0, 1)  # fmt: skip
    assert abs(d["utilisation_pct"] - 100 / 3) < 1e-9
    assert (d["fee"], d["savings"], d["net_savings"], d["unused_cost"]) == (
        D("240"), D("98"), D("-142"), D("160"))  # fmt: skip
    assert (d["term"], d["region"], d["teams"], d["sku_description"]) == (
        "1 Year", "us-central1", "llm", FEE_SKU)  # fmt: skip
    assert_books_close(b)


def test_a_day_boundary_and_usage_above_the_commitment(books):
    # The fee row covers 2026-10-31 23:00 - 2026-11-01 01:00: 240 for 12 GPUs x 2 h, so 120
    # and 43,200 GPU-s in each hour, one hour on each day.
    # 23:00 (Oct 31): vm-1's 8 GPUs: 120 x 28,800 / 43,200 = 80, unused 40.
    # 00:00 (Nov 1): vm-1 and vm-2, 8 GPUs each, 57,600 s credited > 43,200 committed: the
    # whole fee is split by usage: 120 x 28,800 / 57,600 = 60 each; unused 0.
    # run-a (llm) holds vm-1 for both hours: 80 + 60 = 140. run-b (vision) holds vm-2: 60.
    billing = [
        fee("2026-10-31 23", 240, hours=2, end_hour="2026-11-01 01"),
        gpu("2026-10-31 23", 98, end_hour="2026-11-01 00", typed_credits=(cud(-98),)),
        gpu("2026-11-01 00", 98, typed_credits=(cud(-98),)),
        gpu("2026-11-01 00", 98, resource="vm-2", typed_credits=(cud(-98),)),
    ]
    runs = [
        run("run-a", "2026-10-31T23:00:00Z", "2026-11-01T01:00:00Z"),
        run("run-b", "2026-11-01T00:00:00Z", "2026-11-01T01:00:00Z", resource="vm-2",
            team="vision"),
    ]  # fmt: skip
    b = books.build(billing, runs)
    assert b.run_cost("run-a") == D("140")
    assert b.run_cost("run-b") == D("60")
    days = b.rows("SELECT * FROM commitment_utilisation ORDER BY day")
    got = [(str(d["day"]), d["committed_accelerator_hours"], d["used_accelerator_hours"],
            d["utilisation_pct"], d["fee"], d["savings"], d["unused_cost"], d["teams"])
           for d in days]  # fmt: skip
    # Oct 31: 8 of 12 GPU-hours (66.67%), saved 98. Nov 1: 12 of 12 counted (usage above the
    # commitment is not utilisation), saved 98 + 98 = 196.
    assert got == [
        ("2026-10-31", 12.0, 8.0, 800 / 12, D("120"), D("98"), D("40"), "llm"),
        ("2026-11-01", 12.0, 12.0, 100.0, D("120"), D("196"), D("0"), "llm, vision"),
    ]
    assert_books_close(b)


def test_an_unused_reservation_is_idle_of_its_reservation_and_project(books):
    # vm-1's hour (80) goes to the run. Reserved H100 capacity nobody consumed bills 80 on a
    # row the system label marks unused: it is unused reservation of res-h100 in ml-shared
    # (its reservation labels), 8 GPU-hours, not a machine's idle and not shared cost.
    reservation = {UNUSED: "true", "compute.googleapis.com/reservation_name": "res-h100",
                   "compute.googleapis.com/reservation_project_id": "ml-shared"}  # fmt: skip
    billing = [
        gpu("2026-10-01 00", 80),
        gpu("2026-10-01 00", 80, resource="res-h100-slot", system_labels=reservation),
    ]
    b = books.build(billing, [run("r", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z")])
    assert b.run_cost("r") == D("80")
    assert unused(b) == [
        ("2026-10-01 00:00:00", "unused_reservation", "ml-shared", "res-h100", 8.0, D("80"))
    ]
    assert b.rows("SELECT * FROM idle_capacity WHERE resource_name = 'res-h100-slot'") == []
    assert_books_close(b)


def test_a_promotion_credit_on_a_committed_row_does_not_count(books):
    # 12-GPU commitment, fee 120 for hour 00.
    # vm-1: 98 with a CUD credit -78.40 naming the commitment and a promotion -9.80:
    #   effective 9.80; its 28,800 GPU-s used the commitment -> 120 x 28,800 / 43,200 = 80.
    # vm-2: 98 with only a promotion -9.80 and sustained use -5 (same account, region, type):
    #   not committed usage -> no fee share; effective 83.20, all unallocated idle.
    # Unused commitment 120 - 80 = 40 (had vm-2 counted: 60 + 60, unused 0).
    # Run on vm-1: 9.80 + 80 = 89.80. Savings from credits: 78.40 (the promotion is not one).
    promo = (-9.80, "PROMOTION", "promo-2026")
    billing = [
        fee("2026-10-01 00", 120),
        gpu("2026-10-01 00", 98, typed_credits=(cud(-78.40), promo)),
        gpu("2026-10-01 00", 98, resource="vm-2",
            typed_credits=(promo, (-5, "SUSTAINED_USAGE_DISCOUNT", "Sustained Usage Discount"))),
    ]  # fmt: skip
    b = books.build(billing, [run("r", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z")])
    assert b.run_cost("r") == D("89.80")
    assert b.idle("vm-2", "2026-10-01 00:00:00")["unallocated_idle_cost"] == D("83.20")
    assert hourly(b, "2026-10-01 00")["unused_nanos"] == 40 * 10**9
    d = b.rows("SELECT savings, net_savings, unused_cost FROM commitment_utilisation")[0]
    assert d == {"savings": D("78.40"), "net_savings": D("-41.60"), "unused_cost": D("40")}
    assert_books_close(b)


def test_a_fee_share_on_a_row_labelled_with_a_run_goes_to_that_run(books):
    # vm-1's GPU row is labelled run_id=r (a direct row): its 8 GPUs use a 16-GPU commitment
    # (fee 160): 160 x 28,800 / 57,600 = 80 goes directly to r with the row (0 after credit).
    # Unused commitment: 80.
    billing = [
        fee("2026-10-01 00", 160, gpus=16),
        gpu("2026-10-01 00", 98, typed_credits=(cud(-98),), labels={"run_id": "r"}),
    ]
    b = books.build(billing, [run("r", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z")])
    assert b.run_cost("r") == D("80")
    assert b.one("SELECT direct_cost FROM cost_per_run WHERE run_id = 'r'") == D("80")
    assert hourly(b, "2026-10-01 00")["unused_nanos"] == 80 * 10**9
    assert_books_close(b)


def test_the_headline_shows_unused_commitment_and_reservation_beside_idle(books):
    # Effective: fee 120 + vm-1 0 (98 - 98) + reservation 80 + tax 5 = 205.
    # Run on vm-1: 80 (its fee share); unused commitment 40; unused reservation 80;
    # shared cost: only the tax, 5 = 205 - 80 - 0 (unallocated idle) - 40 - 80.
    from flopledger.cli.headline import headline_lines

    reservation = {UNUSED: "true", "compute.googleapis.com/reservation_name": "res-h100"}
    billing = [
        fee("2026-10-01 00", 120),
        gpu("2026-10-01 00", 98, typed_credits=(cud(-98),)),
        gpu("2026-10-01 00", 80, resource="res-h100", system_labels=reservation),
        line_item(sku="Tax", cost=5, resource=None, cost_type="tax"),
    ]
    b = books.build(billing, [run("r", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z")])
    text = "\n".join(headline_lines(b.warehouse, "USD"))
    assert "effective cost                          205.00 USD" in text
    assert "cost of runs (1)                         80.00 USD" in text
    assert "unused commitment cost                   40.00 USD" in text
    assert "unused reservation cost                  80.00 USD" in text
    assert "shared cost                               5.00 USD" in text
    assert_books_close(b)


def test_a_commitment_billed_in_euros_and_a_fee_correction(books):
    # EUR at 0.921734 EUR per USD, the USD amounts worked by hand:
    # fee 110.60808 EUR = 120 USD, and a correction of the same hour's fee -11.060808 EUR = -12
    # USD (cost_type adjustment, no usage: a price correction): F = 108, Q = 43,200 s.
    # vm-1: 92.1734 EUR = 100 USD, a CUD credit -92.1734 EUR = -100 USD naming the commitment
    # and a promotion -9.21734 EUR = -10 USD: effective -10 USD. Its 8 of 12 GPUs take 108 x 28,800 / 43,200 = 72; unused 36.
    # The run: -10 + 72 = 62. Savings: the CUD part of the credits in USD,
    # -110 x (-92.1734 / -101.39074) = -100 -> saved 100; net of the fee 100 - 108 = -8.
    eur = {"currency": "EUR", "rate": "0.921734"}
    billing = [
        {**fee("2026-10-01 00", "110.60808"), **_eur(cost_usd=120)},
        {**fee("2026-10-01 00", "-11.060808"), **_eur(cost_usd=-12), "cost_type": "adjustment",
         "accelerator_seconds": D(0), "usage_amount": D(0)},
        gpu("2026-10-01 00", "92.1734", cost_usd=100, credits_usd=-110,
            typed_credits=(cud("-92.1734"), ("-9.21734", "PROMOTION", "promo-2026")), **eur),
    ]  # fmt: skip
    b = books.build(billing, [run("r", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z")])
    assert b.run_cost("r") == D("62")
    assert hourly(b, "2026-10-01 00")["unused_nanos"] == 36 * 10**9
    d = b.rows("SELECT fee, savings, net_savings, unused_cost FROM commitment_utilisation")[0]
    assert d == {
        "fee": D("108"),
        "savings": D("100"),
        "net_savings": D("-8"),
        "unused_cost": D("36"),
    }
    assert_books_close(b)


def _eur(cost_usd: Any) -> dict[str, Any]:
    """A fee row's money in EUR (rows.line_item never converts: USD amounts by hand)."""
    usd = D(str(cost_usd))
    return {"currency": "EUR", "currency_conversion_rate": D("0.921734"), "cost_usd": usd,
            "cost_at_list_usd": usd}  # fmt: skip


def test_committed_credits_without_a_fee_are_reported(books):
    # vm-1's hour 00 got a CUD credit (-98 of 98) naming a commitment whose fee is not in the
    # warehouse (billed to another account): its run looks free. Reported, with the credits;
    # hour 01 has the fee and is not. vm-2 has no committed credit: not reported.
    billing = [
        gpu("2026-10-01 00", 98, typed_credits=(cud(-98),)),
        gpu("2026-10-01 01", 98, typed_credits=(cud(-98),)),
        fee("2026-10-01 01", 120),
        gpu("2026-10-01 00", 98, resource="vm-2"),
    ]
    b = books.build(billing, [run("r", "2026-10-01T00:00:00Z", "2026-10-01T02:00:00Z")])
    issues = b.rows("SELECT kind, resource_name, detail, effective_cost FROM allocation_issues")
    assert issues == [
        {
            "kind": "unmatched_commitment_credit",
            "resource_name": "vm-1",
            "detail": "1 hour(s) with 98.000000000 USD of committed-use credits and no "
            "commitment fee to match",
            "effective_cost": D("0"),
        }
    ]
    assert_books_close(b)


UNNAMED = "Committed Usage Discount: GPU"  # a committed-use credit whose id names no commitment


def utilisation(b) -> list[tuple[str, float, float, D, D, D]]:
    return [
        (r["commitment_id"], r["used_accelerator_hours"], r["utilisation_pct"], r["fee"],
         r["savings"], r["unused_cost"])
        for r in b.rows("SELECT * FROM commitment_utilisation ORDER BY commitment_id")
    ]  # fmt: skip


def test_an_unnamed_credit_is_split_over_two_commitments_not_counted_twice(books):
    # Two 12-GPU commitments cud-a and cud-b (43,200 GPU-s each), fee 120 each for hour 00.
    # vm-1's 8 GPUs (28,800 s) got a committed-use credit -98 that names neither, so both
    # match by account, region and type. The row is split pro rata by committed quantity
    # (43,200 : 43,200), cumulative floors in commitment_id order:
    #   usage cud-a floor(28,800 x 43,200 / 86,400) = 14,400 s, cud-b 28,800 - 14,400 = 14,400;
    #   credit cud-a floor(-98 x 1/2) = -49, cud-b -49.
    # Shares: 120 x 14,400 / 43,200 = 40 each; unused 80 each. The run on vm-1: 0 (98 - 98)
    # + 40 + 40 = 80. Each commitment: 4 of 12 GPU-hours (33.33%), saved 49.
    # (Before: the whole row matched both: run 160, unused 40 + 40, 66.7% each, saved 98 twice.)
    # Books: effective 240 = run 80 + unused 160.
    billing = [
        fee("2026-10-01 00", 120, name="cud-a"),
        fee("2026-10-01 00", 120, name="cud-b"),
        gpu("2026-10-01 00", 98, typed_credits=((-98, "COMMITTED_USAGE_DISCOUNT", UNNAMED),)),
    ]
    b = books.build(billing, [run("r", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z")])
    assert b.run_cost("r") == D("80")
    assert [(r["commitment_id"], r["used_nanos"], r["allocated_nanos"], r["unused_nanos"])
            for r in b.rows("SELECT * FROM commitment_hourly ORDER BY commitment_id")] == [
        ("cud-a", 14_400 * 10**9, 40 * 10**9, 80 * 10**9),
        ("cud-b", 14_400 * 10**9, 40 * 10**9, 80 * 10**9),
    ]  # fmt: skip
    got = utilisation(b)
    assert [(c, h, f, s, u) for c, h, _, f, s, u in got] == [
        ("cud-a", 4.0, D("120"), D("49"), D("80")),
        ("cud-b", 4.0, D("120"), D("49"), D("80")),
    ]
    assert all(abs(pct - 100 / 3) < 1e-9 for _, _, pct, _, _, _ in got)
    assert_books_close(b)


def test_an_unnamed_credit_over_two_commitments_of_different_sizes(books):
    # cud-a: 12 GPUs (43,200 s), fee 120; cud-b: 24 GPUs (86,400 s), fee 200; W = 129,600.
    # vm-1's 8 GPUs (28,800 s), credit -98 naming neither:
    #   usage cud-a floor(28,800 x 43,200 / 129,600) = 9,600 s; cud-b 28,800 - 9,600 = 19,200.
    #   credit cud-a floor(-98e9 / 3) = floor(-32,666,666,666.67) = -32,666,666,667 nanos,
    #          cud-b -98e9 + 32,666,666,667 = -65,333,333,333 nanos (saved 32.666666667 and
    #          65.333333333: 98 in all, counted once).
    # Shares: cud-a floor(120e9 x 9,600 / 43,200) = floor(26,666,666,666.67) = 26.666666666;
    #         cud-b floor(200e9 x 19,200 / 86,400) = floor(44,444,444,444.4) = 44.444444444.
    # Run: 0 + 26.666666666 + 44.444444444 = 71.11111111. Unused: 120 - 26.666666666 =
    # 93.333333334 and 200 - 44.444444444 = 155.555555556. Both 2.667 / 5.333 GPU-hours of
    # 12 / 24 = 22.22%. Books: 71.11111111 + 93.333333334 + 155.555555556 = 320.
    billing = [
        fee("2026-10-01 00", 120, name="cud-a"),
        fee("2026-10-01 00", 200, gpus=24, name="cud-b"),
        gpu("2026-10-01 00", 98, typed_credits=((-98, "COMMITTED_USAGE_DISCOUNT", UNNAMED),)),
    ]
    b = books.build(billing, [run("r", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z")])
    assert b.run_cost("r") == D("71.11111111")
    assert [(r["commitment_id"], r["committed_usage_nanos"], r["credit_nanos"], r["fee_share_nanos"])
            for r in b.rows("SELECT * FROM commitment_allocation ORDER BY commitment_id")] == [
        ("cud-a", 9_600 * 10**9, -32_666_666_667, 26_666_666_666),
        ("cud-b", 19_200 * 10**9, -65_333_333_333, 44_444_444_444),
    ]  # fmt: skip
    got = utilisation(b)
    assert [(c, f, s, u) for c, _, _, f, s, u in got] == [
        ("cud-a", D("120"), D("32.666666667"), D("93.333333334")),
        ("cud-b", D("200"), D("65.333333333"), D("155.555555556")),
    ]
    assert all(abs(pct - 200 / 9) < 1e-9 for _, _, pct, _, _, _ in got)
    assert_books_close(b)


def test_a_row_whose_credits_name_two_commitments_is_split_by_those_credits(books):
    # vm-1's 8 GPUs got two CUD credits: -73.50 naming cud-a and -24.50 naming cud-b (3 : 1).
    # Usage cud-a floor(28,800 x 73.5 / 98) = 21,600 s, cud-b 7,200 s. Shares (12 GPUs, fee 120
    # each): 120 x 21,600 / 43,200 = 60 and 120 x 7,200 / 43,200 = 20. Run 0 + 60 + 20 = 80;
    # unused 60 + 100 = 160; saved 73.50 and 24.50. Books: 240 = 80 + 160.
    billing = [
        fee("2026-10-01 00", 120, name="cud-a"),
        fee("2026-10-01 00", 120, name="cud-b"),
        gpu("2026-10-01 00", 98, typed_credits=(cud("-73.50", "cud-a"), cud("-24.50", "cud-b"))),
    ]
    b = books.build(billing, [run("r", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z")])
    assert b.run_cost("r") == D("80")
    assert [(c, h, f, s, u) for c, h, _, f, s, u in utilisation(b)] == [
        ("cud-a", 6.0, D("120"), D("73.50"), D("60")),
        ("cud-b", 2.0, D("120"), D("24.50"), D("100")),
    ]
    assert_books_close(b)


def test_commitments_without_a_resource_name_stay_apart_by_term(books):
    # Two fee rows naming no resource, same account, region and GPU, one 1-year (fee 120) and
    # one 3-year (fee 90), 12 GPUs each: two commitments (account/region/kind/SKU), not one.
    # vm-1's 8 GPUs, credit -98 naming neither: 14,400 s each (pro rata 43,200 : 43,200),
    # shares 120 x 1/3 = 40 and 90 x 1/3 = 30; run 0 + 40 + 30 = 70; unused 80 and 60.
    # Books: 210 = 70 + 140.
    three = FEE_SKU.replace("1 Year", "3 Years")
    billing = [
        fee("2026-10-01 00", 120, name=None),
        fee("2026-10-01 00", 90, name=None, sku=three),
        gpu("2026-10-01 00", 98, typed_credits=((-98, "COMMITTED_USAGE_DISCOUNT", UNNAMED),)),
    ]
    b = books.build(billing, [run("r", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z")])
    assert b.run_cost("r") == D("70")
    rows = b.rows("SELECT commitment_id, term, fee, unused_cost FROM commitment_utilisation"
                  " ORDER BY term")  # fmt: skip
    prefix = "01ABCD-234567-89EF01/us-central1/H100-80GB/"
    assert rows == [
        {"commitment_id": prefix + FEE_SKU, "term": "1 Year", "fee": D("120"),
         "unused_cost": D("80")},
        {"commitment_id": prefix + three, "term": "3 Years", "fee": D("90"),
         "unused_cost": D("60")},
    ]  # fmt: skip
    assert_books_close(b)


def test_idle_figures_keep_unused_commitment_and_reservation_out_of_the_shares(books):
    # Fee 120 (12 GPUs); vm-1's 8 GPUs 98 - 98 CUD: its hour is 0 + fee share 80 = 80, held by
    # the run all hour: accelerator resource cost 80, unallocated idle 0, both cost shares 0%.
    # Unused commitment 40 and unused reservation 80 (res-h100, project ml-prod) are figures of
    # their own, in neither share (were they in, the unallocated share would be 120 / 200).
    from flopledger.models import query_sql

    reservation = {UNUSED: "true", "compute.googleapis.com/reservation_name": "res-h100"}
    billing = [
        fee("2026-10-01 00", 120),
        gpu("2026-10-01 00", 98, typed_credits=(cud(-98),)),
        gpu("2026-10-01 00", 80, resource="res-h100", system_labels=reservation),
    ]
    b = books.build(billing, [run("r", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z")])
    every = {"start_day": None, "end_day": None, "providers": [], "projects": [],
             "accelerators": [], "group_by": None}  # fmt: skip
    row = b.warehouse.query(query_sql("idle_figures"), every).to_pylist()[0]
    assert (row["accelerator_cost"], row["unallocated_idle_cost"],
            row["unallocated_idle_share_of_cost"]) == (D("80"), D("0"), 0.0)  # fmt: skip
    assert (row["unused_commitment_cost"], row["unused_reservation_cost"]) == (D("40"), D("80"))
    elsewhere = {**every, "projects": ["elsewhere"]}
    other = b.warehouse.query(query_sql("idle_figures"), elsewhere).to_pylist()[0]
    assert (other["unused_commitment_cost"], other["unused_reservation_cost"]) == (0, 0)
    assert_books_close(b)
