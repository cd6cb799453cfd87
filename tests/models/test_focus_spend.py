"""spend_daily names every provider: FOCUS rows under their ProviderName as written, Google's
export rows under gcp as before. By hand: the public FOCUS sample's per-provider totals (its
README's exact sums) beside one GCP GPU hour of 80.00."""

from decimal import Decimal as D
from pathlib import Path

from flopledger.collectors.focus.read import read_focus_files
from tests.models.rows import gpu, run

SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "focus" / "focus_sample.csv"


def test_spend_daily_shows_every_provider(books):
    books.warehouse.ensure_schema()
    books.warehouse.replace_all("focus_line_items", read_focus_files([SAMPLE]).table)
    b = books.build(
        [gpu("2026-10-01 00", 80)], [run("r", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z")]
    )
    rows = b.rows(
        "SELECT provider, sum(billed_cost) AS billed, sum(credits_total) AS credits,"
        " sum(effective_cost) AS effective FROM spend_daily GROUP BY 1 ORDER BY 1"
    )
    # AWS: BilledCost 18.00663861840 in all, of which its one Credit row (line 458, AWS Open
    # Source Promotional Credits) is -2.61370000000: billed before credits 18.00663861840 +
    # 2.6137 = 20.62033861840. EffectiveCost as the files say: AWS 13, Oracle 0.
    assert rows == [
        {"provider": "AWS", "billed": D("20.62033861840"), "credits": D("-2.6137"),
         "effective": D("13")},
        {"provider": "Microsoft", "billed": D("1.97651418586"), "credits": D("0"),
         "effective": D("1.97651418586")},
        {"provider": "Oracle", "billed": D("0.53707392473"), "credits": D("0"), "effective": D("0")},
        {"provider": "gcp", "billed": D("80"), "credits": D("0"), "effective": D("80")},
    ]  # fmt: skip
    # The sample's 30 September days, and 1 October 2026 for the GCP hour.
    assert b.one("SELECT count(DISTINCT day) FROM spend_daily") == 31
    categories = {r["category"] for r in b.rows("SELECT DISTINCT category FROM spend_daily")}
    assert {"compute", "storage", "network", "other", "accelerator"} <= categories


def test_spend_monthly_invoice_per_provider(books):
    """The sample's billing period is September 2024 (BillingPeriodStart 2024-09-01): invoice
    month 202409, its figure the sum of BilledCost (the README's totals), credits apart (AWS's
    -2.6137 credit row); but one Oracle row (charge 2024-09-30 22:00, 0.24) is billed in
    October's period: Oracle 202409 = 0.53707392473 - 0.24 = 0.29707392473, 202410 = 0.24."""
    books.warehouse.ensure_schema()
    books.warehouse.replace_all("focus_line_items", read_focus_files([SAMPLE]).table)
    b = books.build(
        [gpu("2026-10-01 00", 80)], [run("r", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z")]
    )
    rows = b.rows(
        "SELECT invoice_month, provider, sum(credits_in_currency) AS credits,"
        " sum(effective_cost_in_currency) AS invoice FROM spend_monthly GROUP BY 1, 2 ORDER BY 1, 2"
    )
    assert rows == [
        {"invoice_month": "202409", "provider": "AWS", "credits": D("-2.6137"),
         "invoice": D("18.00663861840")},
        {"invoice_month": "202409", "provider": "Microsoft", "credits": D("0"),
         "invoice": D("1.97651418586")},
        {"invoice_month": "202409", "provider": "Oracle", "credits": D("0"),
         "invoice": D("0.29707392473")},
        {"invoice_month": "202410", "provider": "Oracle", "credits": D("0"), "invoice": D("0.24")},
        {"invoice_month": "202610", "provider": "gcp", "credits": D("0"), "invoice": D("80")},
    ]  # fmt: skip


def test_gpu_instance_rows_are_accelerator_spend(books, tmp_path):
    """One p5.48xlarge hour (98.32, tagged team llm) is accelerator spend of team llm; an
    m5.large hour (0.096, ServiceCategory Compute, untagged) is compute, unallocated."""
    path = tmp_path / "aws.csv"
    path.write_text(
        "ProviderName,ChargeCategory,ChargePeriodStart,ChargePeriodEnd,BilledCost,EffectiveCost,"
        "BillingCurrency,ChargeDescription,ServiceCategory,Tags\n"
        'AWS,Usage,2026-10-01T00:00:00Z,2026-10-01T01:00:00Z,98.32,98.32,USD,p5.48xlarge,Compute,"{""team"": ""llm""}"\n'
        "AWS,Usage,2026-10-01T00:00:00Z,2026-10-01T01:00:00Z,0.096,0.096,USD,m5.large,Compute,\n"
    )
    books.warehouse.ensure_schema()
    books.warehouse.replace_all("focus_line_items", read_focus_files([path]).table)
    b = books.build([], [])
    rows = b.rows(
        "SELECT team, category, effective_cost FROM spend_daily WHERE provider = 'AWS' ORDER BY 1"
    )
    assert rows == [
        {"team": "__unallocated__", "category": "compute", "effective_cost": D("0.096")},
        {"team": "llm", "category": "accelerator", "effective_cost": D("98.32")},
    ]
