"""Other clouds' GPUs in the same books (issue 18): FOCUS rows allocated by the rule GCP VMs are.

A hand-worked AWS example, read from FOCUS 1.2 rows as AWS writes them. Two p5.48xlarge
instances (8 x H100 each, on demand 55.04 USD/h, Compute Savings Plan rate 38.40 USD/h) and a
savings plan committing 57.60 USD/h, on 1 October 2026:

hour 10:00  i-0aaa (an ARN ResourceId) up all hour: covered by the plan, EffectiveCost 38.40.
            i-0bbb (ResourceName ip-10-0-1-17.ec2.internal) up all hour: the plan's other
            19.20 covers 0.5 h of it (EffectiveCost 19.20), the other 0.5 h is on demand
            (0.5 x 55.04 = 27.52, billed). Purchase row: BilledCost 57.60, EffectiveCost 0.
hour 11:00  i-0aaa covered again (38.40); i-0bbb is gone; the plan's other 19.20 is an
            Unused row. Purchase row: BilledCost 57.60, EffectiveCost 0.
the day     a gp3 volume, one daily row of 2.40: 0.10 in each of the day's 24 hours.

Bill: billed 57.60 + 27.52 + 57.60 + 2.40 = 145.12; effective 38.40 + 19.20 + 27.52 + 38.40 +
19.20 + 2.40 = 145.12.

A daily GPU row (docs/focus.md): i-0ddd, a p5 up 12 h of the day on demand, one daily row of
12 h x 55.04 = 660.48, spread evenly: 27.52 and 8 x 12 x 3,600 / 24 = 14,400 GPU-s paid in each
of the 24 hours. r3 holds its 8 GPUs 00:00-06:00: it claims 28,800 GPU-s an hour, more than the
14,400 paid, so it is clipped to the hour's 27.52: 6 x 27.52 = 165.12, and the other 18 hours,
495.36, are unallocated idle (a daily row does not say when in the day the instance ran).

Runs: r1 holds i-0aaa's 8 GPUs 10:00-11:30 (placed by instance id, the ARN's last part);
r2 holds 4 GPUs of i-0bbb 10:00-10:15 (placed by its node name, the ResourceName).
- i-0aaa 10:00: E 38.40, paid 8 x 3,600 = 28,800 GPU-s, r1 holds 28,800 -> r1 38.40.
- i-0aaa 11:00: E 38.40, r1 holds 8 x 1,800 = 14,400 -> r1 19.20, unallocated idle 19.20.
- i-0bbb 10:00: E 19.20 + 27.52 = 46.72, paid (0.5 + 0.5) h x 8 = 28,800 GPU-s, r2 holds
  4 x 900 = 3,600 -> r2 46.72 / 8 = 5.84, unallocated idle 40.88.
Two linked accounts (210987654321 and 310987654321) both bill an instance named i-0eee, 10.00
each in hour 10:00. r4's placement names i-0eee and no account: which one is unknown, so it is
not allocated (both rows stay unallocated idle) and allocation_issues reports it.

r1 = 57.60, r2 = 5.84; unallocated accelerator idle 19.20 + 40.88 = 60.08; the volume 2.40
(pooled, no run); unused commitment 19.20. 57.60 + 5.84 + 60.08 + 2.40 + 19.20 = 145.12; with
the daily GPU row, 145.12 + 660.48 = 805.60 (r3 165.12 + its idle 495.36); with both i-0eee
rows, 825.60.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

from flopledger.collectors.focus.read import read_focus_files
from tests.models.conftest import Books, check_sql
from tests.models.rows import gpu, run

D = Decimal
SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "focus" / "focus_sample.csv"
PLAN = "arn:aws:savingsplans::109876543210:savingsplan/plan-1"
HEADER = (
    "ProviderName,BillingAccountId,SubAccountId,BillingCurrency,RegionId,ChargeCategory,"
    "ChargeFrequency,PricingCategory,ChargePeriodStart,ChargePeriodEnd,BilledCost,EffectiveCost,"
    "ListCost,ContractedCost,ResourceId,ResourceName,ChargeDescription,ConsumedQuantity,"
    "ConsumedUnit,CommitmentDiscountId,CommitmentDiscountStatus,CommitmentDiscountCategory"
)
P5 = "per Savings Plan Linux p5.48xlarge Instance Hour"
ROWS = [
    # Hour 10:00.
    f"Purchase,Recurring,Committed,T10,T11,57.60,0,0,0,{PLAN},,Compute Savings Plan,,,{PLAN},,Spend",
    f"Usage,Usage-Based,Committed,T10,T11,0,38.40,55.04,55.04,"
    f"arn:aws:ec2:us-east-1:210987654321:instance/i-0aaa,,USD 38.40 {P5},1,Hrs,{PLAN},Used,Spend",
    f"Usage,Usage-Based,Committed,T10,T11,0,19.20,27.52,27.52,i-0bbb,ip-10-0-1-17.ec2.internal,"
    f"USD 38.40 {P5},0.5,Hrs,{PLAN},Used,Spend",
    "Usage,Usage-Based,Standard,T10,T11,27.52,27.52,27.52,27.52,i-0bbb,ip-10-0-1-17.ec2.internal,"
    "USD 55.04 per On Demand Linux p5.48xlarge Instance Hour,0.5,Hrs,,,",
    # Hour 11:00.
    f"Purchase,Recurring,Committed,T11,T12,57.60,0,0,0,{PLAN},,Compute Savings Plan,,,{PLAN},,Spend",
    f"Usage,Usage-Based,Committed,T11,T12,0,38.40,55.04,55.04,"
    f"arn:aws:ec2:us-east-1:210987654321:instance/i-0aaa,,USD 38.40 {P5},1,Hrs,{PLAN},Used,Spend",
    f"Usage,Usage-Based,Committed,T11,T12,0,19.20,0,0,{PLAN},,Unused commitment,,,{PLAN},Unused,Spend",
    # The day: a volume's daily row.
    "Usage,Usage-Based,Standard,DAY0,DAY1,2.40,2.40,2.40,2.40,vol-0ccc,,gp3 storage,80,GB-Mo,,,",
    # A GPU instance billed by the day.
    "Usage,Usage-Based,Standard,DAY0,DAY1,660.48,660.48,660.48,660.48,i-0ddd,,"
    "USD 55.04 per On Demand Linux p5.48xlarge Instance Hour,12,Hrs,,,",
]
TIMES = {
    "T10": "2026-10-01T10:00:00Z",
    "T11": "2026-10-01T11:00:00Z",
    "T12": "2026-10-01T12:00:00Z",
    "DAY0": "2026-10-01T00:00:00Z",
    "DAY1": "2026-10-02T00:00:00Z",
}


EEE = "Usage,Usage-Based,Standard,T10,T11,10,10,10,10,i-0eee,,USD 55.04 per On Demand Linux p5.48xlarge Instance Hour,1,Hrs,,,"


def _aws_file(folder: Path) -> Path:
    lines = [HEADER]
    for account, row in [("210987654321", r) for r in [*ROWS, EEE]] + [("310987654321", EEE)]:
        cells = [TIMES.get(c, c) for c in row.split(",")]
        lines.append(",".join(["AWS", "109876543210", account, "USD", "us-east-1", *cells]))
    path = folder / "aws-focus.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def _runs():
    """r1's placement names the AWS account (the FOCUS SubAccountId); r2's names none (its node
    name is billed in one account only)."""
    r1 = run(
        "r1", "2026-10-01T10:00:00Z", "2026-10-01T11:30:00Z", resource="i-0aaa",
        project_id="210987654321",
    )  # fmt: skip
    r2 = run("r2", "2026-10-01T10:00:00Z", "2026-10-01T10:15:00Z")
    r2["placements"] = [
        {"resource_name": "ip-10-0-1-17.ec2.internal", "accelerators": 4, "project_id": None}
    ]
    r3 = run("r3", "2026-10-01T00:00:00Z", "2026-10-01T06:00:00Z", resource="i-0ddd")
    r3["placements"][0]["project_id"] = None
    r4 = run("r4", "2026-10-01T10:00:00Z", "2026-10-01T11:00:00Z", resource="i-0eee")
    r4["placements"][0]["project_id"] = None
    return [r1, r2, r3, r4]


@pytest.fixture(scope="module")
def aws(tmp_path_factory) -> Books:
    """The example's FOCUS rows beside one GCP GPU hour of 80.00 that no run held, built once."""
    books = Books(tmp_path_factory.mktemp("focus-allocation"))
    read = read_focus_files([_aws_file(books.root)])
    assert read.quarantined == [] and read.table.num_rows == len(ROWS) + 2
    books.warehouse.ensure_schema()
    books.warehouse.replace_all("focus_line_items", read.table)
    return books.build([gpu("2026-10-01 10", 80)], _runs())


def test_two_aws_instances_a_savings_plan_and_a_daily_row_hand_worked(aws):
    b = aws
    assert b.run_cost("r1") == D("57.60")  # 38.40 + 38.40 x 14,400 / 28,800
    assert b.run_cost("r2") == D("5.84")  # 46.72 x 3,600 / 28,800
    arn = "i-0aaa"  # the instance's ARN ResourceId, folded to its instance id
    first, second = b.idle(arn, "2026-10-01 10:00:00"), b.idle(arn, "2026-10-01 11:00:00")
    assert (first["effective_cost"], first["unallocated_idle_cost"]) == (D("38.40"), D(0))
    assert (second["allocated_cost"], second["unallocated_idle_cost"]) == (D("19.20"), D("19.20"))
    other = b.idle("i-0bbb", "2026-10-01 10:00:00")
    assert other["paid_accelerator_hours"] == 8.0  # (0.5 + 0.5) h x 8 GPUs
    assert (other["effective_cost"], other["unallocated_idle_cost"]) == (D("46.72"), D("40.88"))
    assert {first["provider"], second["provider"], other["provider"]} == {"AWS"}
    assert b.idle("vm-1", "2026-10-01 10:00:00")["provider"] == "gcp"
    # The daily row: 2.40 / 24 = 0.10 in each of its 24 hours.
    volume = b.rows(
        "SELECT count(*) AS hours, min(effective_nanos) AS lo, max(effective_nanos) AS hi"
        " FROM resource_hour_pool WHERE resource_name = 'vol-0ccc'"
    )
    assert volume == [{"hours": 24, "lo": 100_000_000, "hi": 100_000_000}]
    # Unused savings plan: hour 11's Unused row, 19.20, is unused commitment (its own kind);
    # hour 10 used it all (its Purchase row's EffectiveCost is 0: nothing unused).
    unused = b.rows(
        "SELECT name, hour, unused_cost FROM unused_capacity WHERE idle_kind = 'unused_commitment'"
        " ORDER BY hour"
    )
    assert [(u["name"], str(u["hour"]), u["unused_cost"]) for u in unused] == [
        (PLAN, "2026-10-01 10:00:00", D(0)),
        (PLAN, "2026-10-01 11:00:00", D("19.20")),
    ]


def test_a_daily_gpu_row_is_spread_over_its_day(aws):
    assert aws.run_cost("r3") == D("165.12")  # 6 h x 660.48 / 24
    hours = aws.rows(
        "SELECT hour, effective_cost, allocated_cost, paid_accelerator_hours FROM idle_capacity"
        " WHERE resource_name = 'i-0ddd' ORDER BY hour"
    )
    assert len(hours) == 24 and {h["effective_cost"] for h in hours} == {D("27.52")}
    assert {h["paid_accelerator_hours"] for h in hours} == {4.0}  # 14,400 GPU-s
    assert [h["allocated_cost"] for h in hours] == [D("27.52")] * 6 + [D(0)] * 18
    clipped = aws.one(
        "SELECT count(*) FROM allocation_issues WHERE kind = 'clipped_claim'"
        " AND resource_name = 'i-0ddd'"
    )
    assert clipped == 6  # r3 claimed 28,800 GPU-s an hour of the 14,400 paid


def test_the_aws_books_close_on_their_own(aws):
    checks = {r["check_name"].split(":")[0]: r for r in aws.rows("SELECT * FROM books")}
    # AWS: 145.12 + 660.48 + 2 x 10 = 825.60 (module docstring); gcp: one GPU hour, 80.
    assert checks["AWS"]["expected"] == D("825.60") == checks["AWS"]["actual"]
    assert checks["gcp"]["expected"] == D("80") == checks["gcp"]["actual"]
    assert all(r["difference"] == 0 for r in checks.values()), checks
    assert checks["spread rows add up to the export"]["expected"] == D("905.60")
    # Chargeback splits both providers' bills: 825.60 + 80 = 905.60.
    charged = aws.one("SELECT sum(total_cost) FROM team_chargeback")
    assert charged == D("905.60")
    assert aws.rows(check_sql("chargeback_sums_to_the_bill")) == []


def test_a_placement_two_accounts_could_mean_is_reported_not_guessed(aws):
    assert aws.run_cost("r4") == 0
    issues = aws.rows("SELECT detail FROM allocation_issues WHERE kind = 'ambiguous_placement'")
    assert issues == [
        {"detail": "run r4 holds i-0eee, billed in projects 210987654321, 310987654321"}
    ]


def test_the_public_sample_closes_its_books_per_provider(books):
    """Real AWS, Azure and Oracle rows (the FinOps sample): each provider's books close. Its
    money carries 11 places; the allocation takes each row to the nano-dollar (half away from
    zero), so a provider's books total is the sum of its rows so rounded."""
    books.warehouse.ensure_schema()
    read = read_focus_files([SAMPLE])
    books.warehouse.replace_all("focus_line_items", read.table)
    b = books.build([], [])
    want: dict[str, Decimal] = {}
    for row in read.table.to_pylist():
        cost = row["effective_cost"] if row["effective_cost"] is not None else row["billed_cost"]
        nine = cost.quantize(D("1e-9"), rounding=ROUND_HALF_UP)
        want[row["provider_name"]] = want.get(row["provider_name"], D(0)) + nine
    checks = {r["check_name"].split(":")[0]: r for r in b.rows("SELECT * FROM books")}
    for provider in ("AWS", "Microsoft", "Oracle"):
        assert checks[provider]["expected"] == want[provider], provider
    assert all(r["difference"] == 0 for r in checks.values()), checks


def test_one_instance_billed_under_its_arn_and_its_id_is_one_resource(books):
    """Review item 1: AWS names i-0fff by its ARN in a savings-plan row and by its bare id in an
    on-demand row of the same hour; a gp3 volume's ResourceName copies the instance's Name tag
    (trainer-1). r5 places 8 GPUs on trainer-1 for the hour.

    A Correction row of i-0fff with no ConsumedQuantity adds 0.48 and no paid time.

    One resource i-0fff: paid 8 x (0.5 + 0.5) h = 28,800 GPU-s (the correction adds none),
    effective 19.20 + 27.52 + 0.48 = 47.20; r5 holds 8 x 3,600 = 28,800 GPU-s once (not twice,
    not on the volume) -> r5 47.20. The volume's 1.00 stays pooled. Books: 47.20 + 1.00 = 48.20."""
    arn = "arn:aws:ec2:us-east-1:210987654321:instance/i-0fff"
    rows = [
        f"Usage,Usage-Based,Committed,T10,T11,0,19.20,27.52,27.52,{arn},trainer-1,USD 38.40 {P5},"
        f"0.5,Hrs,{PLAN},Used,Spend",
        "Usage,Usage-Based,Standard,T10,T11,27.52,27.52,27.52,27.52,i-0fff,trainer-1,"
        "USD 55.04 per On Demand Linux p5.48xlarge Instance Hour,0.5,Hrs,,,",
        "Usage,Usage-Based,Standard,T10,T11,1.00,1.00,1.00,1.00,vol-0ggg,trainer-1,gp3 storage,"
        "1,GB-Mo,,,",
        # Review item 2: a Correction of the on-demand row with no ConsumedQuantity: 0.48 of
        # money, no paid time (not the charge period's 8 x 3,600 GPU-s again).
        "Usage,Usage-Based,Standard,T10,T11,0.48,0.48,0.48,0.48,i-0fff,trainer-1,"
        "USD 55.04 per On Demand Linux p5.48xlarge Instance Hour,,,,,",
    ]
    lines = [HEADER] + [
        ",".join(["AWS", "109876543210", "210987654321", "USD", "us-east-1",
                  *[TIMES.get(c, c) for c in row.split(",")]])
        for row in rows
    ]  # fmt: skip
    path = books.root / "twice.csv"
    path.write_text("\n".join(lines) + "\n")
    read = read_focus_files([path])
    assert read.quarantined == []
    books.warehouse.ensure_schema()
    books.warehouse.replace_all("focus_line_items", read.table)
    r5 = run("r5", "2026-10-01T10:00:00Z", "2026-10-01T11:00:00Z", resource="trainer-1")
    r5["placements"][0]["project_id"] = None
    b = books.build([], [r5])
    held = b.rows("SELECT resource_name, held_accelerator_nanos FROM run_held_hours")
    assert held == [{"resource_name": "i-0fff", "held_accelerator_nanos": 28_800 * 10**9}]
    assert b.run_cost("r5") == D("47.20")
    pool = b.idle("i-0fff", "2026-10-01 10:00:00")
    assert (pool["paid_accelerator_hours"], pool["effective_cost"]) == (8.0, D("47.20"))
    checks = b.rows("SELECT check_name, expected, difference FROM books")
    assert all(c["difference"] == 0 for c in checks), checks
    assert {c["check_name"].split(":")[0]: c["expected"] for c in checks}["AWS"] == D("48.20")


def test_cli_and_overview_count_focus_credits_alike(books):
    """Review item 5: a savings plan's Purchase (billed 57.60, effective 0), a covered p5 hour
    (billed 0, effective 38.40), an on-demand hour (27.52) and a Credit row (-5.00).
    By hand: billed 57.60 + 27.52 = 85.12 (the Credit row is credits, as in spend_daily);
    credits -5.00; effective 0 + 38.40 + 27.52 - 5.00 = 60.92; commitment amortisation
    60.92 - 85.12 + 5.00 = -19.20 (the plan's hour not used). The CLI's bill lines and the
    Overview's spend_daily sums say the same."""
    from flopledger.cli.headline import _bill_lines

    rows = [
        f"Purchase,Recurring,Committed,T10,T11,57.60,0,0,0,{PLAN},,Compute Savings Plan,,,{PLAN},,Spend",
        f"Usage,Usage-Based,Committed,T10,T11,0,38.40,55.04,55.04,i-0aaa,,USD 38.40 {P5},1,Hrs,{PLAN},Used,Spend",
        "Usage,Usage-Based,Standard,T10,T11,27.52,27.52,27.52,27.52,i-0bbb,,"
        "USD 55.04 per On Demand Linux p5.48xlarge Instance Hour,0.5,Hrs,,,",
        "Credit,None,,T10,T11,-5.00,-5.00,0,0,,,Promotional credit,,,,,",
    ]
    lines = [HEADER] + [
        ",".join(["AWS", "109876543210", "210987654321", "USD", "us-east-1",
                  *[TIMES.get(c, c) for c in row.split(",")]])
        for row in rows
    ]  # fmt: skip
    path = books.root / "credit.csv"
    path.write_text("\n".join(lines) + "\n")
    read = read_focus_files([path])
    assert read.quarantined == [], read.quarantined
    books.warehouse.ensure_schema()
    books.warehouse.replace_all("focus_line_items", read.table)
    b = books.build([], [])
    text = "\n".join(_bill_lines(b.warehouse, "USD"))
    for label, amount in [
        ("billed cost", "85.12"),
        ("credits", "-5.00"),
        ("commitment amortisation", "-19.20"),
        ("effective cost", "60.92"),
    ]:
        assert any(line.split()[: len(label.split())] == label.split() and amount in line
                   for line in text.splitlines()), (label, text)  # fmt: skip
    overview = b.rows(
        "SELECT sum(billed_cost) AS b, sum(credits_total) AS c, sum(effective_cost) AS e"
        " FROM spend_daily"
    )[0]
    assert (overview["b"], overview["c"], overview["e"]) == (D("85.12"), D("-5.00"), D("60.92"))


def test_two_instances_sharing_a_name_tag_are_reported_not_both_held(books):
    """Two p5 instances of one account, i-0hhh and i-0iii, both ResourceName twin, 10.00 each
    in hour 10:00; r6 places 8 GPUs on twin: which instance is unknown, so neither is held (r6
    costs 0, both 10.00 stay unallocated idle) and allocation_issues reports it."""
    rows = [
        f"Usage,Usage-Based,Standard,T10,T11,10,10,10,10,{i},twin,"
        "USD 55.04 per On Demand Linux p5.48xlarge Instance Hour,1,Hrs,,,"
        for i in ("i-0hhh", "i-0iii")
    ]
    lines = [HEADER] + [
        ",".join(["AWS", "109876543210", "210987654321", "USD", "us-east-1",
                  *[TIMES.get(c, c) for c in row.split(",")]])
        for row in rows
    ]  # fmt: skip
    path = books.root / "twin.csv"
    path.write_text("\n".join(lines) + "\n")
    books.warehouse.ensure_schema()
    books.warehouse.replace_all("focus_line_items", read_focus_files([path]).table)
    r6 = run("r6", "2026-10-01T10:00:00Z", "2026-10-01T11:00:00Z", resource="twin")
    r6["placements"][0]["project_id"] = "210987654321"
    b = books.build([], [r6])
    assert b.run_cost("r6") == 0
    assert b.one("SELECT count(*) FROM run_held_hours") == 0
    issues = b.rows("SELECT detail FROM allocation_issues WHERE kind = 'ambiguous_placement'")
    assert issues == [
        {
            "detail": "run r6 holds twin, which names resources i-0hhh, i-0iii in project 210987654321"
        }
    ]
