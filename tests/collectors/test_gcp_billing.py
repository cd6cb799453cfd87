"""The billing reader on hand-written rows in the export's real shapes."""

from datetime import date, datetime
from decimal import Decimal

import pyarrow as pa
import pyarrow.parquet as pq

from flopledger.collectors.gcp_billing.canonical import row_id
from flopledger.collectors.gcp_billing.read import read_billing_files
from tests.conftest import billing_row, credit, write_ndjson


def _one(tmp_path, row):
    table, stats = read_billing_files([write_ndjson(tmp_path / "x.ndjson", [row])])
    assert stats.rows_quarantined == 0, stats.quarantined
    return table.to_pylist()[0]


def test_numbers_written_as_strings_are_exact(tmp_path):
    row = _one(
        tmp_path, billing_row(cost="12.345678", credits=[credit("-1.1")], usage_seconds="3600")
    )
    assert row["cost"] == Decimal("12.345678")
    assert row["credits_total"] == Decimal("-1.1")
    assert row["usage_amount"] == Decimal("3600")
    assert row["accelerator_seconds"] == Decimal("3600")


def test_float_text_is_kept_exactly(tmp_path):
    # 0.1 + 0.2 in binary floats is 0.30000000000000004; as decimals it is 0.3.
    row = _one(tmp_path, billing_row(cost=0.1, credits=[credit(0.2)]))
    assert row["cost"] + row["credits_total"] == Decimal("0.3")


def test_missing_and_null_optional_fields(tmp_path):
    bare = billing_row(resource=None, credits=None)
    for key in ("labels", "system_labels", "credits", "cost_at_list", "invoice", "location"):
        bare.pop(key)
    bare["project"] = None
    row = _one(tmp_path, bare)
    assert row["resource_name"] is None and row["project_id"] is None
    assert row["credits_total"] == Decimal(0)
    assert row["labels"] == [] and row["invoice_month"] is None


def test_unknown_columns_are_kept(tmp_path):
    row = _one(tmp_path, billing_row(brand_new_field={"a": 1}))
    assert row["extra_fields"] == '{"brand_new_field": {"a": "1"}}'


def test_currency_conversion(tmp_path):
    # EUR billed at 0.9 EUR per USD: 9.00 EUR / 0.9 = 10.00 USD; credit -0.45 EUR / 0.9 = -0.50 USD.
    row = _one(tmp_path, billing_row(cost=9.0, credits=[credit(-0.45)], currency="EUR", rate=0.9))
    assert row["cost"] == Decimal("9") and row["currency"] == "EUR"
    assert row["cost_usd"] == Decimal("10.000000000")
    assert row["credits_total_usd"] == Decimal("-0.500000000")


def test_conversion_rounds_half_even_to_nine_places(tmp_path):
    # 1 / 3 = 0.333333333|33... -> 0.333333333 ; 2 / 3 = 0.666666666|66... -> 0.666666667
    a = _one(tmp_path, billing_row(cost=1, rate=3))
    b = _one(tmp_path, billing_row(cost=2, rate=3))
    assert a["cost_usd"] == Decimal("0.333333333")
    assert b["cost_usd"] == Decimal("0.666666667")


def test_bad_rows_are_quarantined_with_reasons(tmp_path):
    good = billing_row()
    backwards = billing_row(hour="2026-10-01 05", end_hour="2026-10-01 04")
    no_cost = billing_row(cost=None)
    bad_number = billing_row(cost="twelve")
    path = write_ndjson(
        tmp_path / "x.ndjson", [good, "{not json", backwards, no_cost, bad_number, "[1, 2]"]
    )
    table, stats = read_billing_files([path])
    reasons = {q.line: q.reason for q in stats.quarantined}
    assert table.num_rows == 1
    assert stats.rows_read == 6 == table.num_rows + stats.rows_quarantined
    assert reasons[2].startswith("not valid JSON")
    assert reasons[3].startswith("usage ends before it starts")
    assert reasons[4] == "cost is missing"
    assert reasons[5] == "cost: 'twelve' is not a number"
    assert reasons[6] == "expected a JSON object, got list"
    assert {q.raw for q in stats.quarantined if q.line == 2} == {"{not json"}


def test_same_row_in_other_spelling_has_the_same_id():
    a = billing_row(cost=1.5, labels={"team": "a"})
    b = billing_row(cost="1.50", labels={"team": "a"})
    b["usage_start_time"] = "2026-10-01T00:00:00Z"  # ISO spelling of the same instant
    b["credits"] = []  # empty list == missing
    b.pop("system_labels")
    assert row_id(a) == row_id(b)
    # ...but a later export_time is a different row (a late restatement).
    c = dict(a, export_time="2026-10-09 04:00:00 UTC")
    assert row_id(a) != row_id(c)


def _parquet_extract(path, rows):
    """A Parquet extract as BigQuery writes it: nested structs, repeated records, real timestamps."""
    kv = pa.list_(pa.struct([("key", pa.string()), ("value", pa.string())]))
    schema = pa.schema(
        [
            ("billing_account_id", pa.string()),
            ("service", pa.struct([("id", pa.string()), ("description", pa.string())])),
            ("sku", pa.struct([("id", pa.string()), ("description", pa.string())])),
            ("usage_start_time", pa.timestamp("us", tz="UTC")),
            ("usage_end_time", pa.timestamp("us", tz="UTC")),
            ("project", pa.struct([("id", pa.string()), ("labels", kv)])),
            ("labels", kv),
            ("resource", pa.struct([("name", pa.string()), ("global_name", pa.string())])),
            ("export_time", pa.timestamp("us", tz="UTC")),
            ("cost", pa.float64()),
            ("currency", pa.string()),
            ("currency_conversion_rate", pa.float64()),
            ("usage", pa.struct([("amount", pa.float64()), ("unit", pa.string())])),
            (
                "credits",
                pa.list_(
                    pa.struct(
                        [("name", pa.string()), ("amount", pa.float64()), ("type", pa.string())]
                    )
                ),
            ),
            ("cost_type", pa.string()),
        ]
    )
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    return path


def test_parquet_extract_nested_records(tmp_path):
    from datetime import UTC

    row = {
        "billing_account_id": "01ABCD",
        "service": {"id": "6F81-5844-456A", "description": "Compute Engine"},
        "sku": {"id": "X", "description": "H200 141GB GPU running in Americas"},
        "usage_start_time": datetime(2026, 10, 2, 3, tzinfo=UTC),
        "usage_end_time": datetime(2026, 10, 2, 4, tzinfo=UTC),
        "project": {"id": "ml-prod", "labels": [{"key": "env", "value": "prod"}]},
        "labels": [{"key": "team", "value": "vision"}],
        "resource": {"name": "a3u-1", "global_name": "//x/a3u-1"},
        "export_time": datetime(2026, 10, 2, 9, tzinfo=UTC),
        "cost": 74.5,
        "currency": "USD",
        "currency_conversion_rate": 1.0,
        "usage": {"amount": 28800.0, "unit": "seconds"},
        "credits": [{"name": "SUD", "amount": -3.25, "type": "SUSTAINED_USAGE_DISCOUNT"}],
        "cost_type": "regular",
    }
    table, stats = read_billing_files([_parquet_extract(tmp_path / "e.parquet", [row])])
    got = table.to_pylist()[0]
    assert stats.rows_quarantined == 0
    assert got["usage_day"] == date(2026, 10, 2)
    assert got["usage_start"] == datetime(2026, 10, 2, 3)
    assert got["accelerator_type"] == "H200-141GB"
    assert got["accelerator_seconds"] == Decimal("28800")
    assert got["labels"] == [("team", "vision")]
    assert got["project_labels"] == [("env", "prod")]
    assert got["cost"] + got["credits_total"] == Decimal("71.25")  # 74.5 - 3.25


def test_a_torn_parquet_file_is_quarantined(tmp_path):
    path = tmp_path / "torn.parquet"
    path.write_bytes(b"PAR1 this is not a parquet file")
    table, stats = read_billing_files([path])
    assert table.num_rows == 0
    assert stats.rows_quarantined == 1
    assert stats.quarantined[0].reason.startswith("unreadable Parquet file")


def test_day_window_only_keeps_rows_of_those_days(tmp_path):
    rows = [
        billing_row(hour="2026-10-01 00"),
        billing_row(hour="2026-10-02 00"),
        billing_row(hour="2026-10-03 00"),
    ]
    table, stats = read_billing_files(
        [write_ndjson(tmp_path / "x.ndjson", rows)], days={date(2026, 10, 2)}
    )
    assert table["usage_day"].to_pylist() == [date(2026, 10, 2)]
    assert (stats.rows_in_window, stats.rows_outside_window) == (1, 2)


def test_huge_usage_amounts_fit_and_too_huge_ones_are_quarantined(tmp_path):
    # 100 TiB kept for a day is about 9.5e18 byte-seconds: beyond Python's default 28 digits once
    # given 9 decimal places, but well inside DECIMAL(38, 9). 1e30 is past limits.max_usage (1e24):
    # quarantined, not a crash.
    big = billing_row(
        sku="Standard Storage US Multi-region", usage={"amount": 9.5e18, "unit": "byte-seconds"}
    )
    too_big = billing_row(usage={"amount": "1e30", "unit": "byte-seconds"})
    table, stats = read_billing_files([write_ndjson(tmp_path / "x.ndjson", [big, too_big])])
    assert table["usage_amount"].to_pylist() == [Decimal("9500000000000000000")]
    assert [q.reason for q in stats.quarantined] == [
        "usage.amount: 1E+30 is beyond limits.max_usage (1e+24)"
    ]


def test_bad_timestamps_are_quarantined_not_fatal(tmp_path):
    rows = [
        billing_row(export_time="garbage"),
        billing_row(usage_start_time=1e20),
        billing_row(usage_end_time="2026-13-45 99:00:00 UTC"),
        billing_row(),
    ]
    table, stats = read_billing_files([write_ndjson(tmp_path / "x.ndjson", rows)])
    assert table.num_rows == 1
    reasons = [q.reason for q in stats.quarantined]
    assert len(reasons) == 3
    assert all("is not a" in r for r in reasons), reasons
