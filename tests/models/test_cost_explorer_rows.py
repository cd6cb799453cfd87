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
    ]  # fmt: skip
    b = books.build(billing, [])
    models = {
        r["pricing_model"]: r["c"]
        for r in b.rows(
            "SELECT pricing_model, sum(effective_cost) AS c FROM cost_explorer_rows GROUP BY 1"
        )
    }
    # The core row: 4 billed - 1 sustained use = 3 effective, and its credit type is kept.
    assert models == {"spot": D("1"), "commitment": D("2"), "on_demand": D("3")}
    types = {
        r["sku_description"]: r["credit_types"]
        for r in b.rows("SELECT sku_description, credit_types FROM cost_explorer_rows")
    }
    assert types["A3 Instance Core running in Americas"] == ["SUSTAINED_USAGE_DISCOUNT"]
    assert types["Commitment v1: A3 Cpu in Americas for 1 Year"] == []
