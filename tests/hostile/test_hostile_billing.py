"""Hostile billing export lines: every one is loaded or quarantined with its reason, none
crashes the read, none opens an ingest window beyond the plausible one.

Bounds (collectors/limits.py defaults): money |x| <= 1e12 per row, usage <= 1e24,
accelerator-seconds <= 1e12, timestamps in 2000-01-01 .. 2100-01-01, a row spans <= 366 days.
"""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal

import pytest

from flopledger.collectors.gcp_billing.days import extract_days
from flopledger.collectors.gcp_billing.read import read_billing_files
from tests.conftest import billing_row, credit
from tests.hostile.hostile import LOADED, Case, bounded, check, write_lines

GPU = "Nvidia H100 80GB GPU running in Americas"


def _deep(n: int) -> str:
    return "[" * n + "]" * n


CASES = [
    Case("a plain row", billing_row(), LOADED),
    Case("cost exactly at the bound (1e12)", billing_row(cost="1000000000000"), LOADED),
    Case(
        "two rows of 9e28 would overflow a sum", billing_row(cost=9e28), "beyond limits.max_money"
    ),
    Case("cost past the bound (1e13)", billing_row(cost="1e13"), "cost: 1E+13 is beyond"),
    Case("negative cost past the bound", billing_row(cost=-2e12), "beyond limits.max_money"),
    Case("list cost past the bound", billing_row(cost_at_list=5e15), "cost_at_list"),
    Case("a credit past the bound", billing_row(credits=[credit(-3e12)]), "credits[0].amount"),
    Case("cost NaN", billing_row(cost="NaN"), "not a finite number"),
    Case("cost Infinity", billing_row(cost="Infinity"), "not a finite number"),
    Case("cost true", billing_row(cost=True), "is not a number"),
    Case("cost missing", billing_row(cost=None), "cost is missing"),
    Case("a tiny rate inflates USD", billing_row(cost=10, rate="1e-15"), "in USD"),
    Case("rate zero", billing_row(rate=0), "must be positive"),
    Case(
        "invoice.month false (the FOCUS mart parsed it as a month and crashed)",
        {**billing_row(), "invoice": {"month": False, "publisher_type": "GOOGLE"}},
        "invoice.month: expected YYYYMM",
    ),
    Case(
        "invoice.month 202613",
        {**billing_row(), "invoice": {"month": "202613", "publisher_type": "GOOGLE"}},
        "invoice.month: expected YYYYMM",
    ),
    Case(
        "GPU usage of 1e27 seconds (billing_hourly overflow)",
        billing_row(sku=GPU, usage_seconds="1e27"),
        "usage.amount: 1E+27 is beyond limits.max_usage",
    ),
    Case(
        "GPU usage of 1e13 seconds: past the accelerator-seconds bound",
        billing_row(sku=GPU, usage_seconds="1e13"),
        "accelerator-seconds",
    ),
    Case(
        "storage usage 9.5e18 byte-seconds (100 TiB for a day) is real",
        billing_row(sku="Standard Storage US Multi-region", usage_seconds=9.5e18),
        LOADED,
    ),
    Case(
        "year 9999",
        billing_row(
            usage_start_time="9999-01-01 00:00:00 UTC", usage_end_time="9999-01-01 01:00:00 UTC"
        ),
        "outside the plausible window",
    ),
    Case(
        "an offset that takes the start past year 9999 in UTC (was an OverflowError)",
        billing_row(
            usage_start_time="9999-12-31T23:00:00-05:00", usage_end_time="9999-12-31T23:30:00-05:00"
        ),
        "between years 1 and 9999",
    ),
    Case(
        "a 1970 row (a 20,730-day window)",
        billing_row(usage_start_time="1970-01-01 00:00:00 UTC"),
        "usage_start_time: 1970-01-01T00:00:00 is outside the plausible window",
    ),
    Case(
        '"20261001" read as epoch seconds is 1970',
        billing_row(usage_start_time="20261001"),
        "outside the plausible window",
    ),
    Case(
        "export_time in 2200",
        billing_row(export_time="2200-01-01 00:00:00 UTC"),
        "export_time",
    ),
    Case(
        "usage ends before it starts",
        billing_row(usage_end_time="2026-09-30 00:00:00 UTC"),
        "ends before it starts",
    ),
    Case(
        "a row spanning 400 days",
        billing_row(
            usage_start_time="2025-08-01 00:00:00 UTC", usage_end_time="2026-09-05 00:00:00 UTC"
        ),
        "more than 366 days",
    ),
    Case("credits not a list", billing_row(credits={"amount": 1}), "credits: expected a list"),
    Case("a JSON array, not an object", [1, 2, 3], "expected a JSON object"),
    Case("a torn line", '{"cost": 1, "usage_start', "not valid JSON"),
    Case("JSON nested 100,000 deep", _deep(100_000), "not readable JSON"),
    Case("a 5,000-digit integer", '{"cost": ' + "9" * 5000 + "}", "not readable JSON"),
    Case(
        "invalid UTF-8 in a label (would become a new team)",
        b'{"labels": [{"key": "team", "value": "llm\xff\xfe"}]}',
        "invalid UTF-8 (byte 0xff",
    ),
    Case(
        "cost given twice in one object (json.loads would keep the last)",
        json.dumps(billing_row(cost=1.0))[:-1] + ', "cost": 999999.0}',
        "duplicate key 'cost' in one JSON object",
    ),
    Case(
        "project.id given twice, nested",
        json.dumps({**billing_row(), "project": "@"}).replace('"@"', '{"id": "p", "id": "q"}'),
        "duplicate key 'id' in one JSON object",
    ),
    Case("a 10,000-character label value", billing_row(labels={"note": "x" * 10_000}), LOADED),
    Case("labels a string", {**billing_row(), "labels": "team=llm"}, "labels: expected a list"),
]


@pytest.fixture(scope="module")
def read(tmp_path_factory):
    folder = tmp_path_factory.mktemp("billing")
    main = write_lines(folder / "a.ndjson", CASES)
    # A UTF-8 byte order mark before the first line of a second extract.
    bom = folder / "b.ndjson"
    bom.write_bytes(b"\xef\xbb\xbf" + write_lines(folder / "tmp", [CASES[0]]).read_bytes())
    table, stats = bounded(lambda: read_billing_files([main, bom]))
    return table, stats, main, bom


@pytest.mark.parametrize("number", range(len(CASES)), ids=[c.name for c in CASES])
def test_each_billing_case(read, number):
    table, stats, main, _ = read
    loaded = {r["source_line"] for r in table.to_pylist() if r["source"] == str(main)}
    reasons = {q.line: q.reason for q in stats.quarantined if q.file == str(main)}
    check(CASES[number], loaded, reasons, number + 1)


def test_a_bom_is_not_part_of_the_line(read):
    table, stats, _, bom = read
    assert [r["source_line"] for r in table.to_pylist() if r["source"] == str(bom)] == [1]
    assert not [q for q in stats.quarantined if q.file == str(bom)]


def test_the_read_is_cheap_and_every_line_is_counted(read):
    """Cheap: the read that built `read` did a bounded amount of work (hostile.bounded)."""
    table, stats, *_ = read
    # read = loaded + quarantined: 31 lines in a.ndjson + 1 in b.ndjson = 32.
    assert stats.rows_read == len(CASES) + 1 == table.num_rows + stats.rows_quarantined


def test_invalid_bytes_are_kept_as_escapes(read):
    _, stats, main, _ = read
    line = next(i for i, c in enumerate(CASES, 1) if c.name.startswith("invalid UTF-8"))
    raw = next(q.raw for q in stats.quarantined if q.file == str(main) and q.line == line)
    assert "llm\\xff\\xfe" in raw and "\ufffd" not in raw


def test_loaded_money_cannot_overflow_a_sum(read):
    table, *_ = read
    # Every loaded cost is within 1e12: even 1e16 such rows sum below DECIMAL(38, 9)'s 1e29.
    costs = [abs(c) for c in table["cost"].to_pylist()]
    assert max(costs) <= Decimal(10) ** 12
    assert max(costs) * 10**16 < Decimal(10) ** 29


def test_absurd_timestamps_open_no_ingest_window(tmp_path):
    rows = [
        billing_row(usage_start_time="1970-01-01 00:00:00 UTC"),
        billing_row(usage_start_time="20261001"),
        billing_row(usage_start_time="9999-01-01 00:00:00 UTC"),
        billing_row(),
    ]
    path = write_lines(tmp_path / "x.ndjson", [Case(str(i), r, LOADED) for i, r in enumerate(rows)])
    found = extract_days(path)
    # Only the plausible start names a day; the other three rows make the file one to read.
    assert found.days == {date(2026, 10, 1)} and found.unsure
