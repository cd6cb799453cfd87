"""cost_explorer_rows: each billing row split into the runs it was allocated to and what no run
was allocated, worked by hand; every grouping of it adds up to the effective cost."""

from decimal import Decimal as D

from tests.models.rows import gpu, host, line_item, run

# Hour 00 of an 8-GPU VM: GPU row 80 (row-0) + host row 20 (row-1) = 100 (28,800 GPU-s paid).
# run-a (llm) holds 4 GPUs all hour:   floor(100 x 14,400 / 28,800) = 50.
# run-b (vision) holds 2 GPUs all hour: floor(100 x  7,200 / 28,800) = 25.
# run-c (no team) holds 1 GPU 20 min:   floor(100 x  1,200 / 28,800) = 4.166666666.
# Unallocated idle: 100 - 50 - 25 - 4.166666666 = 20.833333334.
# Each claim (runs, then idle) is spread over the hour's rows by their cost (80 : 20) with
# cumulative floors both ways (the row's parts add up to the row, a claim's to the claim):
#   run-a: GPU floor(50 x 80/100) = 40,               host 50 - 40 = 10.
#   run-b: GPU floor(25 x 80/100) = 20,               host 5.
#   run-c: GPU floor(4.166666666 x 80/100) = floor(3.3333333328) = 3.333333332,
#          host 4.166666666 - 3.333333332 = 0.833333334.
#   idle:  GPU 80 - 40 - 20 - 3.333333332 = 16.666666668; host 20 - 10 - 5 - 0.833333334 = 4.166666666.
# A tax row 7 (no resource) is shared; a bucket row 3 labelled run_id=run-a goes to run-a.
BILLING = [
    gpu("2026-10-01 00", 80),
    host("2026-10-01 00", 20),
    line_item(sku="Tax", resource=None, cost="7", cost_type="tax"),
    line_item(sku="Standard Storage US Multi-region", resource="ckpt", cost="3",
              service="Cloud Storage", labels={"run_id": "run-a", "team": "llm"}),
]  # fmt: skip
RUNS = [
    run("run-a", gpus=4, team="llm"),
    run("run-b", gpus=2, team="vision", workload_class="batch_inference"),
    run("run-c", end="2026-10-01T00:20:00Z", gpus=1, team=None),
]


def test_rows_split_into_runs_idle_and_shared(books):
    b = books.build(BILLING, RUNS)
    parts = {
        (r["row_id"], r["run_id"], r["cost_part"]): r["effective_cost"]
        for r in b.rows("SELECT * FROM cost_explorer_rows")
    }
    assert parts == {
        ("row-0", "run-a", "run"): D("40"),
        ("row-0", "run-b", "run"): D("20"),
        ("row-0", "run-c", "run"): D("3.333333332"),
        ("row-0", None, "unallocated_idle"): D("16.666666668"),
        ("row-1", "run-a", "run"): D("10"),
        ("row-1", "run-b", "run"): D("5"),
        ("row-1", "run-c", "run"): D("0.833333334"),
        ("row-1", None, "unallocated_idle"): D("4.166666666"),
        ("row-2", None, "shared"): D("7"),
        ("row-3", "run-a", "run"): D("3"),
    }
    # The idle parts are idle_capacity's unallocated idle: 16.666666668 + 4.166666666.
    assert (
        b.one(
            "SELECT sum(effective_cost) FROM cost_explorer_rows WHERE cost_part = 'unallocated_idle'"
        )
        == b.one("SELECT sum(unallocated_idle_cost) FROM idle_capacity")
        == D("20.833333334")
    )
    # A run's parts are its cost: run-a 40 + 10 + 3 = 53 = cost_per_run.
    for run_id, cost in (("run-a", "53"), ("run-b", "25"), ("run-c", "4.166666666")):
        assert b.run_cost(run_id) == D(cost)
    # Any grouping adds up to the effective cost 80 + 20 + 7 + 3 = 110.
    for column in ("run_team", "label_team", "cost_part", "sku_description", "pricing_model",
                   "workload_class", "accelerator_type", "run_id"):  # fmt: skip
        total = b.one(
            f"SELECT sum(c) FROM (SELECT {column}, sum(effective_cost) AS c"
            " FROM cost_explorer_rows GROUP BY 1)"
        )
        assert total == D("110"), column
    teams = dict(
        (r["run_team"], r["c"])
        for r in b.rows(
            "SELECT run_team, sum(effective_cost) AS c FROM cost_explorer_rows GROUP BY 1"
        )
    )
    # llm 53; vision 25; run-c has no team: __unallocated__ 4.166666666; no run: 20.833333334 + 7.
    assert teams == {"llm": D("53"), "vision": D("25"), "__unallocated__": D("4.166666666"),
                     None: D("27.833333334")}  # fmt: skip
    assert {r["pricing_model"] for r in b.rows("SELECT pricing_model FROM cost_explorer_rows")} == {
        "on_demand"
    }


def test_pricing_model_from_the_sku(books):
    billing = [
        line_item(sku="Spot Preemptible A3 Instance Core running in Americas", cost="1"),
        line_item(sku="Commitment v1: A3 Cpu in Americas for 1 Year", resource=None, cost="2"),
        line_item(sku="A3 Instance Core running in Americas", cost="4",
                  typed_credits=((-1, "SUSTAINED_USAGE_DISCOUNT", "sud"),)),
        # Reserved and DWS capacity keep their pricing model (billing_line_items'; the
        # explorer's own ILIKE copy called both on_demand).
        line_item(sku="Reserved H200 141GB GPU running in Netherlands", cost="8",
                  resource="vm-r", accelerator_type="H200-141GB"),
        line_item(sku="Nvidia H100 Mega 80GB GPU attached to DWS Defined Duration VMs running "
                      "in Americas", cost="16", resource="vm-d", accelerator_type="H100-MEGA-80GB"),
    ]  # fmt: skip
    b = books.build(billing, [])
    models = {
        r["pricing_model"]: r["c"]
        for r in b.rows(
            "SELECT pricing_model, sum(effective_cost) AS c FROM cost_explorer_rows GROUP BY 1"
        )
    }
    # The core row: 4 billed - 1 sustained use = 3 effective, and its credit type is kept.
    # The GPU rows ran no run: their whole cost is there (unallocated idle), 8 and 16.
    assert models == {"spot": D("1"), "commitment": D("2"), "on_demand": D("3"),
                      "reserved": D("8"), "dws": D("16")}  # fmt: skip
    types = {
        r["sku_description"]: r["credit_types"]
        for r in b.rows("SELECT sku_description, credit_types FROM cost_explorer_rows")
    }
    assert types["A3 Instance Core running in Americas"] == ["SUSTAINED_USAGE_DISCOUNT"]
    assert types["Commitment v1: A3 Cpu in Americas for 1 Year"] == []


def _parts(b):
    return {
        (r["row_id"], r["run_id"], r["cost_part"]): r["effective_cost"]
        for r in b.rows("SELECT * FROM cost_explorer_rows")
    }


def test_commitment_fee_and_unused_reservation_rows_have_parts_of_their_own(books):
    # The scenario of tests/models/test_chargeback.py's commitments (one October hour):
    #   row-0 fee 120 (12-GPU commitment); row-1 vm-1's 8 GPUs 98 - 98 CUD naming it = 0;
    #   row-2 vm-1's host 8; row-3 unused reservation 80; row-4 tax 5; row-5 vm-2's GPUs 80.
    # vm-1's pool: row-1 0 + row-2 8 + its fee share 120 x 28,800 / 43,200 = 80, which stands
    # on the fee row (row-0): llm-1 holds it all, 88 = row-0 80 + row-2 8 (row-1's 0 is no part).
    # The fee row's other 40 is unused commitment; row-3 is unused reservation; vis-1 holds
    # vm-2 30 min: 40 run, 40 unallocated idle; the tax is shared.
    from tests.models.test_chargeback import COMMITTED, COMMITTED_RUNS

    b = books.build(COMMITTED, COMMITTED_RUNS)
    assert _parts(b) == {
        ("row-0", "llm-1", "run"): D("80"),
        ("row-0", None, "unused_commitment"): D("40"),
        ("row-2", "llm-1", "run"): D("8"),
        ("row-3", None, "unused_reservation"): D("80"),
        ("row-4", None, "shared"): D("5"),
        ("row-5", "vis-1", "run"): D("40"),
        ("row-5", None, "unallocated_idle"): D("40"),
    }
    # Grouped by part: runs 128 = cost_per_run (88 + 40), idle 40, unused commitment 40 =
    # commitment_hourly, unused reservation 80 = unused_capacity; all 293 = effective cost.
    by_part = dict(
        (r["cost_part"], r["c"])
        for r in b.rows(
            "SELECT cost_part, sum(effective_cost) AS c FROM cost_explorer_rows GROUP BY 1"
        )
    )
    assert by_part == {"run": D("128"), "unallocated_idle": D("40"),
                       "unused_commitment": D("40"), "unused_reservation": D("80"),
                       "shared": D("5")}  # fmt: skip
    assert (b.run_cost("llm-1"), b.run_cost("vis-1")) == (D("88"), D("40"))
    assert b.one("SELECT sum(unused_cost) FROM unused_capacity") == D("120")
    assert b.one("SELECT sum(effective_cost) FROM spend_daily") == D("293")


def test_a_run_labelled_rows_fee_share_is_the_runs(books):
    # row-0 fee 120; row-1 vm-1's 8 GPUs 98 - 98 (CUD naming the commitment), labelled
    # run_id=run-a: its fee share 80 goes to run-a on the fee row; the fee's other 40 is
    # unused commitment. run-a's parts, 80, are its cost_per_run (before: 0 in the explorer).
    billing = [
        line_item(sku="Commitment v1: Nvidia H100 80GB GPU in Americas for 1 Year", cost=120,
                  resource="cud-h100-12", accelerator_type="H100-80GB",
                  accelerator_seconds=43200, usage_amount=43200, usage_unit="seconds"),
        gpu("2026-10-01 00", 98, labels={"run_id": "run-a"},
            typed_credits=((-98, "COMMITTED_USAGE_DISCOUNT", "cud-h100-12"),)),
    ]  # fmt: skip
    b = books.build(billing, [run("run-a", team="llm")])
    assert _parts(b) == {
        ("row-0", "run-a", "run"): D("80"),
        ("row-0", None, "unused_commitment"): D("40"),
    }
    assert b.run_cost("run-a") == D("80")
