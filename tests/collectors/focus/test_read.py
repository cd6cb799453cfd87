"""The FOCUS reader against the public FinOps sample and the specification's worked examples.

The sample's per-provider totals are the README's exact decimal sums of focus_sample.csv
(tests/fixtures/README.md names the file's origin), worked by hand below from its own figures."""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from flopledger.collectors.focus.read import FOCUS_SCHEMA, read_focus_files

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "focus"
SAMPLE = FIXTURES / "focus_sample.csv"
EXAMPLES = FIXTURES / "spec-examples"
EXAMPLE_DEFAULTS = {"ProviderName": "Example", "BillingCurrency": "USD"}


def _totals(table: pa.Table, column: str) -> dict[str, Decimal]:
    sums: dict[str, Decimal] = defaultdict(Decimal)
    for provider, amount in zip(
        table["provider_name"].to_pylist(), table[column].to_pylist(), strict=True
    ):
        sums[provider] += amount
    return dict(sums)


@pytest.fixture(scope="module")
def sample():
    return read_focus_files([SAMPLE])


def test_sample_totals_to_the_last_digit(sample):
    """README: BilledCost AWS 18.00663861840, Microsoft 1.97651418586, Oracle 0.53707392473;
    EffectiveCost AWS 13.00000000000, Microsoft 1.97651418586, Oracle 0. Every one of the
    1,000 rows loads (AWS 942, Microsoft 51, Oracle 7), none twice, none refused."""
    table = sample.table
    assert table.num_rows == 1000 and sample.quarantined == [] and sample.duplicates == 0
    assert _totals(table, "billed_cost") == {
        "AWS": Decimal("18.00663861840"),
        "Microsoft": Decimal("1.97651418586"),
        "Oracle": Decimal("0.53707392473"),
    }
    assert _totals(table, "effective_cost") == {
        "AWS": Decimal("13.00000000000"),
        "Microsoft": Decimal("1.97651418586"),
        "Oracle": Decimal("0"),
    }
    counts: dict[str, int] = defaultdict(int)
    for p in table["provider_name"].to_pylist():
        counts[p] += 1
    assert counts == {"AWS": 942, "Microsoft": 51, "Oracle": 7}
    assert table.schema.field("billed_cost").type == pa.decimal128(38, 12)


def test_sample_quirks(sample):
    """NULL text is null, timestamps without T/Z are UTC, the non-FOCUS Id column is kept,
    and the seven rows that break the spec (`Usage-based`, null ContractedCost) load flagged."""
    table = sample.table
    first = table.slice(0, 1).to_pylist()[0]
    assert first["availability_zone"] is None  # NULL
    assert first["charge_period_start"] == datetime(2024, 9, 18, 22)
    assert first["charge_day"] == date(2024, 9, 18)
    assert first["billed_cost"] == Decimal("0.00000080000")
    assert first["consumed_quantity"] == Decimal("2")
    assert json.loads(first["x_columns"]) == {"Id": "11472"}
    assert first["focus_version"] == "1.0" and first["spec_issues"] is None
    flagged = [r for r in table.to_pylist() if r["spec_issues"]]
    assert len(flagged) == 7
    assert all(r["charge_frequency"] == "Usage-Based" for r in flagged)
    assert all(
        "ChargeFrequency 'Usage-based' read as 'Usage-Based'" in r["spec_issues"] for r in flagged
    )
    assert all(r["contracted_cost"] is None for r in flagged)
    assert {r["provider_name"] for r in flagged} <= {"AWS", "Microsoft", "Oracle"}


def test_reread_and_listed_twice_is_one_row(tmp_path):
    again = tmp_path / "again.csv"
    again.write_bytes(SAMPLE.read_bytes())
    read = read_focus_files([SAMPLE, again])
    assert read.table.num_rows == 1000 and read.duplicates == 1000


def test_parquet_1_2_with_x_columns_and_eleven_decimals(tmp_path):
    """A FOCUS 1.2 Parquet file (InvoiceId, PricingCurrency ...), money as Decimal with 11
    places: 0.12345678901 + 1.00000000001 = 1.12345678902 exactly; x_ columns kept."""
    rows = [
        {
            "ProviderName": "AWS",
            "ChargeCategory": "Usage",
            "ChargeFrequency": "Usage-Based",
            "PricingCategory": "Committed",
            "ChargePeriodStart": datetime(2026, 3, 1, 0),
            "ChargePeriodEnd": datetime(2026, 3, 1, 1),
            "BilledCost": Decimal(amount),
            "EffectiveCost": Decimal(amount),
            "ListCost": Decimal(amount),
            "ContractedCost": Decimal(amount),
            "BillingCurrency": "USD",
            "InvoiceId": "INV-1",
            "PricingCurrency": "USD",
            "ResourceId": f"i-0{n}",
            "x_ServiceCode": "AmazonEC2",
        }
        for n, amount in enumerate(["0.12345678901", "1.00000000001"])
    ]
    path = tmp_path / "focus.parquet"
    pq.write_table(
        pa.Table.from_pylist(rows).cast(
            pa.Table.from_pylist(rows).schema.set(6, pa.field("BilledCost", pa.decimal128(38, 11)))
        ),
        path,
    )
    read = read_focus_files([path])
    assert read.quarantined == []
    assert sum(read.table["billed_cost"].to_pylist()) == Decimal("1.12345678902")
    assert set(read.table["focus_version"].to_pylist()) == {"1.2"}
    assert json.loads(read.table["x_columns"][0].as_py()) == {"x_ServiceCode": "AmazonEC2"}
    assert read.table.schema == FOCUS_SCHEMA


def test_rows_whose_meaning_is_unclear_are_quarantined(tmp_path):
    head = (
        "ProviderName,ChargeCategory,ChargePeriodStart,ChargePeriodEnd,BilledCost,BillingCurrency"
    )
    path = tmp_path / "bad.csv"
    path.write_text(
        "\n".join(
            [
                head,
                ",Usage,2026-03-01T00:00:00Z,2026-03-01T01:00:00Z,1.00,USD",
                "AWS,Refund,2026-03-01T00:00:00Z,2026-03-01T01:00:00Z,1.00,USD",
                "AWS,Usage,2026-03-01T01:00:00Z,2026-03-01T00:00:00Z,1.00,USD",
                "AWS,Usage,2026-03-01T00:00:00Z,2026-03-01T01:00:00Z,one,USD",
                "AWS,Usage,1970-01-01T00:00:00Z,1970-01-01T01:00:00Z,1.00,USD",
                "Microsoft,Usage,2026-03-01T00:00:00Z,2026-03-01T01:00:00Z,1.00,EUR",
                "AWS,usage,2026-03-01T00:00:00Z,2026-03-01T01:00:00Z,1.00,USD",
            ]
        )
        + "\n"
    )
    read = read_focus_files([path])
    reasons = [q.reason for q in read.quarantined]
    assert [q.line for q in read.quarantined] == [2, 3, 4, 5, 6, 7]
    assert reasons[0].startswith("ProviderName is null")
    assert reasons[1].startswith("ChargeCategory 'Refund' is not one of")
    assert reasons[2].startswith("ChargePeriodEnd")
    assert reasons[3].startswith("BilledCost:")
    assert "plausible window" in reasons[4]
    assert reasons[5].startswith(
        "BillingCurrency 'EUR': FOCUS carries no rate to USD"
    )  # and no fx_rates
    (kept,) = read.table.to_pylist()
    assert kept["charge_category"] == "Usage" and "ChargeCategory 'usage'" in kept["spec_issues"]


def _example(name: str):
    return read_focus_files([EXAMPLES / f"{name}.csv"], defaults=EXAMPLE_DEFAULTS)


def test_spec_purchase_one_time_is_billed_not_effective():
    """Scenario 1: an 8,760 USD one-year commitment bought up front: BilledCost 8760.00 on the
    purchase row, EffectiveCost 0 (its cost reaches usage rows amortised)."""
    (row,) = _example("commitment_discount_purchase_scenario_1").table.to_pylist()
    assert row["charge_category"] == "Purchase" and row["charge_frequency"] == "One-Time"
    assert (row["billed_cost"], row["effective_cost"]) == (Decimal("8760"), Decimal("0"))
    assert row["commitment_discount_quantity"] == Decimal("8760")
    assert row["resource_id"] == row["commitment_discount_id"] == "<my-commitment-discount-id>"
    assert row["focus_version"] == "1.1"  # CommitmentDiscountQuantity / Unit are 1.1 columns


def test_spec_purchase_recurring_rows_with_impossible_hours_are_quarantined():
    """Scenarios 2 and 3 write ChargePeriodEnd 2023-02-01T30:00:00Z (hour 30): no time, so
    that row is quarantined with the reason; the others load. Scenario 3: 4,380 up front and
    0.50 an hour recurring (half of scenario 1's 1.00 an hour each way)."""
    two = _example("commitment_discount_purchase_scenario_2")
    assert [q.line for q in two.quarantined] == [4]
    assert "ChargePeriodEnd" in two.quarantined[0].reason
    assert two.table["billed_cost"].to_pylist() == [Decimal("1"), Decimal("1")]
    three = _example("commitment_discount_purchase_scenario_3")
    assert sum(three.table["billed_cost"].to_pylist()) == Decimal("4380") + 2 * Decimal("0.5")
    assert sum(three.table["effective_cost"].to_pylist()) == 0


def test_spec_usage_used_and_unused_add_up_to_the_commitment():
    """Usage scenarios: 1 hour of a 1.00/hour commitment. Scenario 1: all used on the
    resource (billed 0, effective 1.00). Scenario 2: all unused, on the commitment itself,
    nothing consumed. Scenario 3: 0.75 used + 0.25 unused = 1.00. Scenario 4: fully used, and
    0.50 of overflow at the Standard (on-demand) price, billed and effective alike."""
    one = _example("commitment_discount_usage_scenario_1").table.to_pylist()
    assert [
        (r["commitment_discount_status"], r["billed_cost"], r["effective_cost"]) for r in one
    ] == [("Used", Decimal("0"), Decimal("1"))]
    (unused,) = _example("commitment_discount_usage_scenario_2").table.to_pylist()
    assert unused["commitment_discount_status"] == "Unused"
    assert unused["resource_id"] == unused["commitment_discount_id"]
    assert unused["consumed_quantity"] is None and unused["effective_cost"] == Decimal("1")
    three = _example("commitment_discount_usage_scenario_3").table.to_pylist()
    by_status = {r["commitment_discount_status"]: r["effective_cost"] for r in three}
    assert by_status == {"Used": Decimal("0.75"), "Unused": Decimal("0.25")}
    assert sum(by_status.values()) == Decimal("1")
    four = _example("commitment_discount_usage_scenario_4").table.to_pylist()
    assert [(r["pricing_category"], r["billed_cost"], r["effective_cost"]) for r in four] == [
        ("Committed", Decimal("0"), Decimal("1")),
        ("Standard", Decimal("0.5"), Decimal("0.5")),
    ]
    assert four[1]["commitment_discount_id"] is None  # the text `null`


def test_spec_flexibility_commitment_covers_a_larger_vm():
    """With flexibility, one 1.50/hour Normalized Hour commitment (purchase billed 0.50,
    effective 0) covers a third of a large VM (effective 0.50) and the rest runs on demand
    (2.25): effective 0.50 + 2.25 = 2.75 = billed 0.50 + 2.25. `SkuPriceid` is SkuPriceId,
    flagged; x_CommitmentDiscountUnitPrice is kept."""
    read = _example(
        "one_hundred_percent_utilization_with_commitment_discount_flexibility_with_1_resource"
    )
    rows = read.table.to_pylist()
    assert read.quarantined == [] and len(rows) == 3
    assert sum(r["effective_cost"] for r in rows) == Decimal("2.75")
    assert sum(r["billed_cost"] for r in rows) == Decimal("2.75")
    assert rows[1]["sku_price_id"] == "VM_LARGE_COMMITTED_HOUR"
    assert "column 'SkuPriceid' read as 'SkuPriceId'" in rows[1]["spec_issues"]
    assert json.loads(rows[1]["x_columns"]) == {"x_CommitmentDiscountUnitPrice": "1.50"}
    assert rows[0]["commitment_discount_unit"] == "Normalized Hour"


def test_gpu_instance_rows_carry_accelerator_type_and_count(tmp_path):
    path = tmp_path / "aws.csv"
    path.write_text(
        "ProviderName,ChargeCategory,ChargePeriodStart,ChargePeriodEnd,BilledCost,BillingCurrency,"
        "ChargeDescription,ResourceId\n"
        "AWS,Usage,2026-03-01T00:00:00Z,2026-03-01T01:00:00Z,98.32,USD,"
        "$98.32 per On Demand Linux p5.48xlarge Instance Hour,i-0abc\n"
        "AWS,Usage,2026-03-01T00:00:00Z,2026-03-01T01:00:00Z,0.096,USD,"
        "$0.096 per On Demand Linux m5.large Instance Hour,i-0def\n"
    )
    rows = read_focus_files([path]).table.to_pylist()
    assert [(r["instance_type"], r["accelerator_type"], r["accelerator_count"]) for r in rows] == [
        ("p5.48xlarge", "H100-80GB", 8),
        (None, None, None),
    ]


def test_a_gpu_row_past_the_accelerator_seconds_bound_is_quarantined(tmp_path):
    """8 GPUs x 1e11 h x 3,600 s = 2.88e15 accelerator-seconds, past limits'
    1e12 (the bound that keeps billing_hourly's nano-second arithmetic from overflowing);
    8 x 1 h x 3,600 = 28,800 is far inside it."""
    path = tmp_path / "huge.csv"
    path.write_text(
        "ProviderName,ChargeCategory,ChargePeriodStart,ChargePeriodEnd,BilledCost,BillingCurrency,"
        "ChargeDescription,ConsumedQuantity,ConsumedUnit,ResourceId\n"
        "AWS,Usage,2026-03-01T00:00:00Z,2026-03-01T01:00:00Z,1,USD,"
        "p5.48xlarge Instance Hour,100000000000,Hrs,i-0abc\n"
        "AWS,Usage,2026-03-01T00:00:00Z,2026-03-01T01:00:00Z,1,USD,"
        "p5.48xlarge Instance Hour,1,Hrs,i-0def\n"
    )
    read = read_focus_files([path])
    assert [r["resource_id"] for r in read.table.to_pylist()] == ["i-0def"]
    assert [q.reason for q in read.quarantined] == [
        "accelerator-seconds: 2880000000000000 is beyond limits.max_accelerator_seconds (1e+12)"
    ]


def test_another_currency_is_converted_with_fx_rates(tmp_path):
    """Review item 6: fx_rates holds EUR 0.92 per USD from 1 March 2026 (0.90 from 3 March).
    A 1 March EUR row, BilledCost 92.00, EffectiveCost 46.00: 92.00 / 0.92 = 100 USD,
    46.00 / 0.92 = 50 USD, the originals kept in x_columns. A February EUR row has no rate on or
    before its day: quarantined, saying so. A GBP row: no GBP rate at all, quarantined."""
    head = "ProviderName,ChargeCategory,ChargePeriodStart,ChargePeriodEnd,BilledCost,EffectiveCost,BillingCurrency"
    path = tmp_path / "eur.csv"
    path.write_text(
        "\n".join(
            [
                head,
                "Microsoft,Usage,2026-03-01T00:00:00Z,2026-03-01T01:00:00Z,92.00,46.00,EUR",
                "Microsoft,Usage,2026-02-27T00:00:00Z,2026-02-27T01:00:00Z,92.00,92.00,EUR",
                "Microsoft,Usage,2026-03-01T00:00:00Z,2026-03-01T01:00:00Z,1.00,1.00,GBP",
            ]
        )
        + "\n"
    )
    fx = {"EUR": [(date(2026, 3, 1), Decimal("0.92")), (date(2026, 3, 3), Decimal("0.90"))]}
    read = read_focus_files([path], fx=fx)
    (row,) = read.table.to_pylist()
    assert (row["billed_cost"], row["effective_cost"]) == (Decimal(100), Decimal(50))
    assert row["billing_currency"] == "USD"
    original = json.loads(row["x_columns"])
    assert original["x_original_billing_currency"] == "EUR"
    assert original["x_original_billed_cost"] == "92.000000000000"
    assert [q.line for q in read.quarantined] == [3, 4]
    assert "no fx_rates rate for EUR on or before 2026-02-27" in read.quarantined[0].reason
    assert "no fx_rates rate for GBP" in read.quarantined[1].reason
