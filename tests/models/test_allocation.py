"""The allocation rule on hand-worked scenarios (the arithmetic is in the comments).

Each GPU row below is for an 8-GPU VM for one hour: 8 x 3600 = 28,800 GPU-seconds paid.
The rows are raw-table rows (tests/models/rows.py); the marts are built from them directly.
"""

from decimal import Decimal as D

from tests.models.rows import gpu, host, line_item, run, tpu


def test_two_runs_share_a_node_over_two_hours(books):
    # Hour 00: GPU 80 + host 8 = 88. Hour 01: GPU 80 + host 8 = 88. Total 176.
    # run-a: 4 GPUs 00:00-01:30 -> hour 00: 4 x 3600 = 14,400 s; hour 01: 4 x 1800 = 7,200 s.
    # run-b: 4 GPUs 00:30-02:00 -> hour 00: 4 x 1800 = 7,200 s;  hour 01: 4 x 3600 = 14,400 s.
    # Paid 28,800 s each hour.
    # run-a = 88 x 14400/28800 + 88 x 7200/28800 = 44 + 22 = 66.
    # run-b = 88 x 7200/28800 + 88 x 14400/28800 = 22 + 44 = 66.
    # Unallocated idle: hour 00: 88 - 44 - 22 = 22; hour 01: 88 - 22 - 44 = 22
    # (4 GPUs idle half of each hour).
    billing = [gpu("2026-10-01 00", 80), host("2026-10-01 00", 8),
               gpu("2026-10-01 01", 80), host("2026-10-01 01", 8)]  # fmt: skip
    runs = [
        run("run-a", "2026-10-01T00:00:00Z", "2026-10-01T01:30:00Z", gpus=4),
        run("run-b", "2026-10-01T00:30:00Z", "2026-10-01T02:00:00Z", gpus=4),
    ]
    b = books.build(billing, runs)
    assert b.run_cost("run-a") == D("66")
    assert b.run_cost("run-b") == D("66")
    hour0 = b.idle("vm-1", "2026-10-01 00:00:00")
    assert hour0["unallocated_idle_cost"] == D("22")
    assert hour0["paid_accelerator_hours"] == 8.0
    assert hour0["allocated_accelerator_hours"] == 6.0  # (14,400 + 7,200) / 3600
    assert hour0["unallocated_idle_hours"] == 2.0
    # run-a: 4 GPUs x 1.5 h = 6 GPU-hours.
    assert b.one("SELECT accelerator_hours FROM cost_per_run WHERE run_id = 'run-a'") == 6.0
    hourly = b.rows("SELECT * FROM accelerator_cost_hourly ORDER BY hour")
    assert [h["effective_cost"] for h in hourly] == [D("88"), D("88")]
    assert [h["accelerator_effective_cost"] for h in hourly] == [D("80"), D("80")]
    assert [h["host_effective_cost"] for h in hourly] == [D("8"), D("8")]


def test_a_vm_that_existed_for_half_an_hour_is_not_idle_for_the_other_half(books):
    # The VM ran 00:00-00:30: the bill pays 8 x 1800 = 14,400 GPU-seconds, cost 40 + host 4 = 44.
    # A run held all 8 GPUs for those 30 minutes: 14,400 s held of 14,400 paid -> share 1 -> 44; idle 0.
    billing = [gpu("2026-10-01 00", 40, seconds=14400), host("2026-10-01 00", 4)]
    b = books.build(billing, [run("r", "2026-10-01T00:00:00Z", "2026-10-01T00:30:00Z")])
    assert b.run_cost("r") == D("44")
    assert b.idle("vm-1", "2026-10-01 00:00:00")["unallocated_idle_cost"] == D("0")


def test_a_late_credit_row_lowers_the_runs_cost(books):
    # Hour 00 GPU 100 with a -30 CUD credit, plus a -10 promotion credit for the same hour
    # exported 9 days later. Effective 100 - 30 - 10 = 60, all to the run that held the whole VM.
    late = gpu("2026-10-01 00", 0, seconds=0, credits=(-10,), export_time="2026-10-10 00")
    billing = [gpu("2026-10-01 00", 100, credits=(-30,)), late]
    b = books.build(billing, [run("r", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z")])
    assert b.run_cost("r") == D("60")
    assert b.one("SELECT list_cost FROM cost_per_run") == D("100")  # list: 100 + 0


def test_labelled_rows_go_to_their_run_and_unknown_labels_are_reported(books):
    # Storage 3.50 labelled run_id=r goes wholly to r; storage 1.25 labelled run_id=ghost stays
    # in its bucket's pool (nobody holds a bucket: unallocated) and is reported.
    storage = "Standard Storage US Multi-region"
    billing = [
        gpu("2026-10-01 00", 80),
        line_item(sku=storage, resource="ckpt", cost="3.50", labels={"run_id": "r"}),
        line_item(sku=storage, resource="ckpt", cost="1.25", labels={"run_id": "ghost"}),
    ]
    b = books.build(billing, [run("r", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z")])
    # r: 80 (the whole GPU hour) + 3.50 direct = 83.50.
    assert b.run_cost("r") == D("83.50")
    assert b.one("SELECT direct_cost FROM cost_per_run WHERE run_id = 'r'") == D("3.50")
    issues = b.rows("SELECT kind, detail, effective_cost FROM allocation_issues")
    assert issues == [{"kind": "unknown_run_label", "detail": "ghost", "effective_cost": D("1.25")}]


def test_a_run_across_midnight_and_a_month_end(books):
    # 23:00 and 00:00 hours across 2026-10-31 -> 2026-11-01, 80 each. The run holds 23:30-00:30:
    # 8 x 1800 s in each hour -> 80 x 1/2 + 80 x 1/2 = 80.
    billing = [
        gpu("2026-10-31 23", 80, end_hour="2026-11-01 00"),
        gpu("2026-11-01 00", 80),
    ]
    b = books.build(billing, [run("r", "2026-10-31T23:30:00Z", "2026-11-01T00:30:00Z")])
    assert b.run_cost("r") == D("80")
    months = b.rows("SELECT month, allocated_cost FROM team_chargeback ORDER BY month")
    assert [m["allocated_cost"] for m in months] == [D("40"), D("40")]
    assert [str(m["month"]) for m in months] == ["2026-10-01", "2026-11-01"]


def test_a_multi_host_tpu_run(books):
    # A v5p node of 16 chips across 4 hosts is one billed resource: 16 x 3600 = 57,600
    # chip-seconds, 67.20. The run's placement holds all 16 chips for the hour -> 67.20.
    # A second node nobody used: all idle.
    billing = [tpu("2026-10-01 00", "67.20", "v5p-32-a"), tpu("2026-10-01 00", "67.20", "v5p-32-b")]
    runs = [run("tpu-run", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z", gpus=16,
                resource="v5p-32-a", accelerator_type="TPU-v5p")]  # fmt: skip
    b = books.build(billing, runs)
    assert b.run_cost("tpu-run") == D("67.20")
    nobody = b.idle("v5p-32-b", "2026-10-01 00:00:00")
    assert nobody["unallocated_idle_cost"] == D("67.20")
    assert nobody["allocated_accelerator_hours"] == 0.0 and nobody["paid_accelerator_hours"] == 16.0
    assert nobody["accelerator_type"] == "TPU-v5p"


def test_a_run_still_running_is_allocated_up_to_the_last_billed_hour(books):
    # Billed hours 00, 01, 02 at 80 each; the run started 00:30 and is still running.
    # It holds 00:30-03:00 (end of the last billed hour): 40 + 80 + 80 = 200.
    billing = [gpu(f"2026-10-01 0{h}", 80) for h in range(3)]
    b = books.build(billing, [run("r", "2026-10-01T00:30:00Z", None, status="running")])
    assert b.run_cost("r") == D("200")
    assert b.one("SELECT status FROM cost_per_run") == "running"


def test_a_row_in_another_currency(books):
    # 92.1734 EUR at 0.921734 EUR per USD = 100 USD; host 9.21734 EUR = 10 USD. The run gets
    # 110 USD. (The USD amounts are the collector's; test_from_files.py reads them from EUR.)
    billing = [
        gpu("2026-10-01 00", "92.1734", currency="EUR", rate="0.921734", cost_usd="100"),
        host("2026-10-01 00", "9.21734", currency="EUR", rate="0.921734", cost_usd="10"),
    ]
    b = books.build(billing, [run("r", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z")])
    assert b.run_cost("r") == D("110")
    monthly = b.rows(
        "SELECT currency, effective_cost_in_currency, effective_cost FROM spend_monthly"
    )
    # In EUR: 92.1734 + 9.21734 = 101.39074.
    assert monthly == [
        {"currency": "EUR", "effective_cost_in_currency": D("101.39074"),
         "effective_cost": D("110")}
    ]  # fmt: skip


def test_a_row_spanning_a_day_is_spread_evenly(books):
    # A disk row of 24.000000001 USD spanning 00:00-24:00 on the VM: 24 hours, 1.000000000 each,
    # and the last hour takes the extra nano: floor(E x C_i / T) telescopes, so the parts add up
    # to the row. The run holds hour 00 only (with its GPU row of 80): 80 + 1 = 81.
    disk = line_item(sku="Balanced PD Capacity", end_hour="2026-10-02 00", cost="24.000000001")
    billing = [gpu("2026-10-01 00", 80), disk]
    b = books.build(billing, [run("r", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z")])
    assert b.run_cost("r") == D("81")
    parts = b.rows(
        """SELECT effective_nanos FROM billing_hourly
           WHERE row_id = (SELECT row_id FROM billing_line_items
                           WHERE usage_end - usage_start = INTERVAL 1 DAY)
           ORDER BY hour"""
    )
    assert len(parts) == 24
    assert [p["effective_nanos"] for p in parts[:23]] == [1_000_000_000] * 23
    assert parts[23]["effective_nanos"] == 1_000_000_001


def test_claims_above_what_was_paid_are_clipped_pro_rata(books):
    # The bill paid 8 GPU-hours (28,800 s, cost 90). Two runs each claim all 8 GPUs for the hour:
    # 57,600 s claimed > 28,800 paid -> each gets 90 x 28,800 / 57,600 = 45; nothing idle;
    # reported. Each is allocated 8 x 28,800 / 57,600 = 4 GPU-hours.
    runs = [run("a", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z"),
            run("b", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z")]  # fmt: skip
    b = books.build([gpu("2026-10-01 00", 90)], runs)
    assert b.run_cost("a") == D("45") and b.run_cost("b") == D("45")
    assert b.one("SELECT clipped FROM cost_per_run WHERE run_id = 'a'") is True
    assert b.rows("SELECT kind FROM allocation_issues") == [{"kind": "clipped_claim"}]
    assert b.one("SELECT allocated_accelerator_hours FROM cost_per_run WHERE run_id = 'a'") == 4.0


def test_rounding_remainders_go_to_idle_and_the_books_close(books):
    # 10 USD shared three ways (three runs hold 1/3 of the paid GPU-seconds each: 9,600 s of
    # 28,800): each gets floor(10e9 x 9600 / 28800) = 3,333,333,333 nanos = 3.333333333;
    # idle keeps the last nano: 10 - 3 x 3.333333333 = 0.000000001.
    runs = [
        run(r, "2026-10-01T00:00:00Z", "2026-10-01T00:20:00Z", gpus=8)
        if r == "a"
        else run(
            r,
            "2026-10-01T00:20:00Z" if r == "b" else "2026-10-01T00:40:00Z",
            "2026-10-01T00:40:00Z" if r == "b" else "2026-10-01T01:00:00Z",
            gpus=8,
        )
        for r in ("a", "b", "c")
    ]
    b = books.build([gpu("2026-10-01 00", 10)], runs)
    assert [b.run_cost(r) for r in "abc"] == [D("3.333333333")] * 3
    assert b.idle("vm-1", "2026-10-01 00:00:00")["unallocated_idle_cost"] == D("0.000000001")
    differences = b.rows("SELECT difference FROM books")
    assert differences and all(r["difference"] == 0 for r in differences)


def test_cost_per_token_experiment_and_job(books):
    # Two attempts of one job in one experiment: attempt 1 failed (80), attempt 2 succeeded (80).
    # Attempt 2 read 400,000,000 tokens: 80 / 400 = 0.2 USD per million tokens.
    # Experiment: 160 in total, 1 successful run -> 160 per successful run.
    billing = [gpu("2026-10-01 00", 80), gpu("2026-10-01 01", 80)]
    runs = [
        run(
            "job-1",
            "2026-10-01T00:00:00Z",
            "2026-10-01T01:00:00Z",
            job_id="job",
            attempt=1,
            status="failed",
            tokens_in=0,
        ),
        run(
            "job-2",
            "2026-10-01T01:00:00Z",
            "2026-10-01T02:00:00Z",
            job_id="job",
            attempt=2,
            tokens_in=400_000_000,
        ),
    ]
    b = books.build(billing, runs)
    assert b.one("SELECT cost_per_million_tokens FROM cost_per_run WHERE run_id = 'job-2'") == D(
        "0.2"
    )
    assert b.one("SELECT cost_per_million_tokens FROM cost_per_run WHERE run_id = 'job-1'") is None
    job = b.rows(
        "SELECT attempts, effective_cost, failed_attempts_cost, final_status FROM cost_per_job"
    )[0]
    assert job == {"attempts": 2, "effective_cost": D("160"), "failed_attempts_cost": D("80"),
                   "final_status": "succeeded"}  # fmt: skip
    exp = b.rows(
        "SELECT runs, successful_runs, effective_cost, cost_per_successful_run"
        " FROM cost_per_experiment"
    )[0]
    assert exp == {"runs": 2, "successful_runs": 1, "effective_cost": D("160"),
                   "cost_per_successful_run": D("160")}  # fmt: skip
    tokens = b.rows("SELECT tokens_in, cost_per_million_tokens FROM cost_per_million_tokens")
    assert tokens == [{"tokens_in": 400_000_000, "cost_per_million_tokens": D("0.2")}]


def test_an_experiments_team_is_the_one_with_most_runs_ties_by_name(books):
    # exp-tie: one run of vision, one of llm -> a tie, which goes to the first by name: llm.
    # exp-most: two runs of vision, one of llm -> vision. Each run holds 4 of vm-1's 8 GPUs
    # in its own hour (80 per hour): 40 each. A rerun of the marts names the same teams.
    billing = [gpu(f"2026-10-01 0{h}", 80) for h in range(5)]
    runs = [
        run(f"r-{i}", f"2026-10-01T0{i}:00:00Z", f"2026-10-01T0{i + 1}:00:00Z", gpus=4,
            team=team, experiment_id=exp)
        for i, (team, exp) in enumerate([("vision", "exp-tie"), ("llm", "exp-tie"),
                                         ("vision", "exp-most"), ("llm", "exp-most"),
                                         ("vision", "exp-most")])
    ]  # fmt: skip
    b = books.build(billing, runs)
    query = "SELECT experiment_id, team, runs, effective_cost FROM cost_per_experiment"
    assert {
        r["experiment_id"]: (r["team"], r["runs"], r["effective_cost"]) for r in b.rows(query)
    } == {
        "exp-most": ("vision", 3, D("120")),
        "exp-tie": ("llm", 2, D("80")),
    }


def test_inference_cost_per_million_output_tokens(books):
    # 80 USD; 300M tokens in + 100M out = 400M -> 0.2 per M tokens; 80 / 100 = 0.8 per M output tokens.
    runs = [
        run(
            "inf",
            "2026-10-01T00:00:00Z",
            "2026-10-01T01:00:00Z",
            workload_class="online_inference",
            tokens_in=300_000_000,
            tokens_out=100_000_000,
        )
    ]
    b = books.build([gpu("2026-10-01 00", 80)], runs)
    row = b.rows(
        "SELECT cost_per_million_tokens, cost_per_million_output_tokens FROM cost_per_run"
    )[0]
    assert row == {"cost_per_million_tokens": D("0.2"), "cost_per_million_output_tokens": D("0.8")}


def test_a_placement_without_a_project_is_not_counted_in_two_projects(books):
    # Slurm knows node names, not projects. node-1 is billed in proj-a (80) and proj-b (80): which
    # one the run held is unknown, so nothing is allocated and the placement is reported.
    # node-2 is billed only in proj-a (60): the run's placement there matches it.
    billing = [
        gpu("2026-10-01 00", 80, resource="node-1", project="proj-a"),
        gpu("2026-10-01 00", 80, resource="node-1", project="proj-b"),
        gpu("2026-10-01 00", 60, resource="node-2", project="proj-a"),
    ]
    slurm_like = run(
        "s", project_id=None, scheduler="slurm",
        placements=[{"resource_name": "node-1", "accelerators": 8},
                    {"resource_name": "node-2", "accelerators": 8}],
    )  # fmt: skip
    b = books.build(billing, [slurm_like])
    assert b.run_cost("s") == D("60")
    assert b.one("SELECT accelerator_hours FROM cost_per_run") == 8.0  # node-2 only
    assert b.one("SELECT project_id FROM cost_per_run") == "proj-a"
    issues = b.rows("SELECT kind, resource_name, detail FROM allocation_issues")
    assert issues == [
        {
            "kind": "ambiguous_placement",
            "resource_name": "node-1",
            "detail": "run s holds node-1, billed in projects proj-a, proj-b",
        }
    ]
