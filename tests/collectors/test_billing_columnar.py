"""The columnar billing reader (issue 15) gives the per-row reader's rows and quarantine exactly.

Every hostile billing line (tests/hostile/test_hostile_billing.py) and a few more that probe
the columnar path's own edges are read both ways; the tables (row_id included) and the
quarantine must be equal, and the lines the columnar path takes itself are the plain ones.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from flopledger.collectors.gcp_billing.columnar import plain_rows
from flopledger.collectors.gcp_billing.read import read_billing_files
from flopledger.collectors.gcp_billing.schema import EXPORT_FIELDS, EXPORT_PARQUET_SCHEMA
from flopledger.collectors.limits import DEFAULT_LIMITS
from flopledger.warehouse.arrow_sql import ArrowSQL
from tests.conftest import billing_row
from tests.hostile.hostile import LOADED, Case, check, write_lines
from tests.hostile.test_hostile_billing import CASES as HOSTILE

NOW = datetime(2026, 11, 1)


def full_row(**changes) -> dict:
    """A row with every export field, in the export's order, as BigQuery writes it."""
    row = {f.name: None for f in EXPORT_FIELDS}
    row.update(billing_row(rate=1.0))
    row.update(tags=[], credits=[], price={"effective_price": "9.796550569", "unit": "hour"})
    row.update(changes)
    return {f.name: row[f.name] for f in EXPORT_FIELDS} | {
        k: v for k, v in row.items() if k not in {f.name for f in EXPORT_FIELDS}
    }


def compact(row: dict) -> str:
    return json.dumps(row, separators=(",", ":"))


STORAGE = "Standard Storage US Multi-region"
# (case, does the columnar statement take it itself)
EDGES = [
    (Case("an export line, compact, every field", compact(full_row()), LOADED), True),
    (Case("cost as a string in a number column", compact(full_row(cost="12.50")), LOADED), True),
    (
        Case(
            "project.number a number in a string column",
            compact(full_row(project={"id": "p", "number": 123456})),
            LOADED,
        ),
        False,
    ),
    (
        Case(
            "cost with 12 places (rounded half to even)",
            compact(full_row(cost="0.123456789500")),
            LOADED,
        ),
        False,
    ),
    (
        Case(
            "another currency: rate 0.92",
            compact(full_row(cost=3.3, currency_conversion_rate=0.92)),
            LOADED,
        ),
        True,
    ),
    (
        Case(
            "storage byte-seconds as a float with an exponent",
            compact(
                full_row(
                    sku={"id": "X", "description": STORAGE},
                    usage={"amount": 1.14108691120128e16, "unit": "byte-seconds"},
                )
            ),
            LOADED,
        ),
        True,
    ),
    (Case("a field the export does not have", compact(full_row(new_field="x")), LOADED), False),
    (
        Case(
            "a non-ASCII label",
            compact(full_row(labels=[{"key": "team", "value": "équipe"}])),
            LOADED,
        ),
        False,
    ),
    (
        Case(
            "one label key twice (the later wins)",
            compact(
                full_row(labels=[{"key": "team", "value": "a"}, {"key": "team", "value": "b"}])
            ),
            LOADED,
        ),
        False,
    ),
    (Case("cost too large", compact(full_row(cost=2e12)), "beyond limits.max_money"), False),
    (Case("a torn last line, no newline", compact(full_row())[:90], "not valid JSON"), False),
]
CASES = HOSTILE + [case for case, _ in EDGES]


def _parquet(path: Path) -> Path:
    """Two Parquet rows in the export's schema: a plain one and one whose cost is NaN."""
    base = {f.name: None for f in EXPORT_FIELDS}
    good = base | {
        "billing_account_id": "01ABCD-234567-89EF01",
        "sku": {"id": "2D5C", "description": "Nvidia H100 80GB GPU running in Americas"},
        "usage_start_time": datetime(2026, 10, 1, 0, tzinfo=UTC),
        "usage_end_time": datetime(2026, 10, 1, 1, tzinfo=UTC),
        "export_time": datetime(2026, 10, 1, 4, 0, 0, 250000, tzinfo=UTC),
        "cost": 78.372405,
        "currency_conversion_rate": 1.0,
        "usage": {
            "amount": 28800.0,
            "unit": "seconds",
            "amount_in_pricing_units": 8.0,
            "pricing_unit": "hour",
        },
        "price": {"effective_price": Decimal("9.796550569"), "tier_start_amount": Decimal(0)},
        "credits": [{"name": "CUD", "amount": -78.372405, "type": "COMMITTED_USAGE_DISCOUNT"}],
        "labels": [{"key": "team", "value": "llm"}],
        "invoice": {"month": "202610"},
    }
    bad = good | {"cost": float("nan")}
    pq.write_table(pa.Table.from_pylist([good, bad], schema=EXPORT_PARQUET_SCHEMA), path)
    return path


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    folder = tmp_path_factory.mktemp("columnar")
    main = write_lines(folder / "a.ndjson", CASES)
    main.write_bytes(main.read_bytes().rstrip(b"\n"))  # the torn line is the last, unended
    bom = folder / "b.ndjson"
    bom.write_bytes(b"\xef\xbb\xbf" + compact(full_row(cost=7)).encode() + b"\n")
    crlf = folder / "c.ndjson"  # universal newlines: read by the per-row reader
    crlf.write_bytes(compact(full_row(cost=8)).encode() + b"\r\n")
    parquet = _parquet(folder / "d.parquet")
    files = [main, bom, crlf, parquet]
    per_row = read_billing_files(files, ingested_at=NOW)
    with ArrowSQL() as engine:
        columnar = read_billing_files(files, ingested_at=NOW, engine=engine)
        taken = {
            path.name: set(table["source_line"].to_pylist())
            for path, table, _ in plain_rows(
                engine, [(main, main.read_bytes()), (parquet, None)], NOW, DEFAULT_LIMITS
            )
        }
    return per_row, columnar, taken, main


def test_the_same_rows_and_quarantine_both_ways(both):
    (a, stats_a), (b, stats_b), _, _ = both
    assert b.schema == a.schema
    assert b.to_pylist() == a.to_pylist()
    assert stats_b.quarantined == stats_a.quarantined
    assert (stats_b.rows_read, stats_b.rows_in_window) == (
        stats_a.rows_read,
        stats_a.rows_in_window,
    )
    # 41 lines + 1 BOM line + 1 CRLF line + 2 Parquet rows were read.
    assert stats_b.rows_read == len(CASES) + 1 + 1 + 2


@pytest.mark.parametrize("number", range(len(CASES)), ids=[c.name for c in CASES])
def test_each_case_is_loaded_or_quarantined_columnar(both, number):
    _, (table, stats), _, main = both
    loaded = {r["source_line"] for r in table.to_pylist() if r["source"] == str(main)}
    reasons = {q.line: q.reason for q in stats.quarantined if q.file == str(main)}
    check(CASES[number], loaded, reasons, number + 1)


def test_plain_lines_are_read_in_columns_and_the_rest_row_by_row(both):
    *_, taken, _ = both
    first = len(HOSTILE) + 1
    expected = {first + i for i, (_, plain) in enumerate(EDGES) if plain}
    assert taken["a.ndjson"] & set(range(first, len(CASES) + 1)) == expected
    assert taken["d.parquet"] == {1}  # row 2's NaN cost goes to the normaliser


def test_hand_worked_values_of_columnar_rows(both):
    _, (table, _), _, main = both
    rows = {r["source_line"]: r for r in table.to_pylist() if r["source"] == str(main)}
    first = len(HOSTILE) + 1
    assert rows[first + 1]["cost"] == Decimal("12.500000000")  # "12.50"
    # 3.3 / 0.92 = 3.586956521|739... -> 3.586956522 (9 places, half to even)
    assert rows[first + 4]["cost_usd"] == Decimal("3.586956522")
    # 1.14108691120128e16 byte-seconds, exactly
    assert rows[first + 5]["usage_amount"] == Decimal("11410869112012800")
    # 0.123456789|500 is a tie; half to even: 9 is odd, so up to ...790
    assert rows[first + 3]["cost"] == Decimal("0.123456790")
    assert dict(rows[first + 8]["labels"]) == {"team": "b"}


def test_a_huge_extract_is_streamed_row_by_row_with_the_same_result(both, monkeypatch):
    """An extract past GROUP_BYTES is not held in memory whole: the per-row reader streams it."""
    import flopledger.collectors.gcp_billing.read as read

    (a, stats_a), _, _, main = both
    monkeypatch.setattr(read, "GROUP_BYTES", 100)  # every test extract is "huge" now
    with ArrowSQL() as engine:
        table, stats = read_billing_files([main], ingested_at=NOW, engine=engine)
    mine = [r for r in a.to_pylist() if r["source"] == str(main)]
    assert table.to_pylist() == mine
    assert stats.quarantined == [q for q in stats_a.quarantined if q.file == str(main)]


def test_empty_and_torn_extracts_read_alike(tmp_path):
    """An empty extract, one of blank lines, an empty Parquet file and a torn one: no rows,
    the torn file quarantined whole, both ways (an empty group once crashed the columnar one)."""
    (tmp_path / "e1.ndjson").write_bytes(b"")
    (tmp_path / "e2.ndjson").write_bytes(b"\n  \n\n")
    pq.write_table(EXPORT_PARQUET_SCHEMA.empty_table(), tmp_path / "e3.parquet")
    (tmp_path / "e4.parquet").write_bytes(b"PAR1 torn")
    files = sorted(tmp_path.iterdir())
    table_a, stats_a = read_billing_files(files, ingested_at=NOW)
    with ArrowSQL() as engine:
        table_b, stats_b = read_billing_files(files, ingested_at=NOW, engine=engine)
    assert table_a.num_rows == table_b.num_rows == 0
    assert stats_b.quarantined == stats_a.quarantined
    assert [q.file for q in stats_b.quarantined] == [str(tmp_path / "e4.parquet")]
