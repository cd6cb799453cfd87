"""The billing export read in place (warehouse.kind: bigquery beside the export table): the
export's rows normalised inside BigQuery by ingest/gcp_billing/sql/billing_export_normalised.sql, only the
rows it cannot prove plain handed to the per-row normaliser. On bqemulator, through the real
client (tests/bigquery_emulator.py), the same export table is taken once in place and once read
out row by row (today's path, into a second dataset): billing_line_items and quarantine must be
identical, every column, money exact. The model also runs on DuckDB (it is DuckDB SQL first).
"""

from __future__ import annotations

import json
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from flopledger.clients import bigquery as bq
from flopledger.collectors.gcp_billing.bigquery import source_name
from flopledger.collectors.gcp_billing.columnar import sku_lookups
from flopledger.collectors.gcp_billing.normalise import normalise
from flopledger.collectors.gcp_billing.read import BillingRead
from flopledger.collectors.gcp_billing.schema import EXPORT_FIELDS, ExportField
from flopledger.collectors.limits import DEFAULT_LIMITS
from flopledger.ingest.gcp_billing import export as export_module
from flopledger.ingest.gcp_billing.export import take_export
from flopledger.ingest.gcp_billing.in_place import MODEL, SQL, in_place_export
from flopledger.ingest.loading import run_limits, store_quarantine
from flopledger.settings import Config, load_config
from flopledger.warehouse.arrow_sql import ArrowSQL
from flopledger.warehouse.bigquery import BigQueryWarehouse
from flopledger.warehouse.transpile import to_bigquery
from tests.bigquery_emulator import PROJECT, BigQueryEmulator
from tests.conftest import billing_row, credit, write_ndjson

TABLE = f"{PROJECT}.export_in_place.gcp_billing_export_resource_v1_01ABCD_234567_89EF01"
NOW = datetime(2026, 10, 10, 12)
NANO = Decimal("0.000000001")


def _usd(amount: str, rate: str) -> Decimal:
    """amount / rate, half to even at 9 places: worked here with Python's decimal, not the code."""
    return (Decimal(amount) / Decimal(rate)).quantize(NANO, rounding=ROUND_HALF_EVEN)


def _rows() -> list[dict[str, Any]]:
    """The export's rows, hostile ones included (h: hour of the day, to tell them apart)."""
    rows = {
        "a": billing_row(hour="2026-10-01 00", cost="100.25", credits=[credit("-20.05")]),
        # another currency: 15037.5 JPY at 150.123 per USD; two credits, -1504.25 JPY in all
        "b": billing_row(
            hour="2026-10-01 01",
            cost=15037.5,
            currency="JPY",
            rate=150.123,
            credits=[credit(-1503.75), credit(-0.5, "PROMOTION")],
        ),
        # a label value with a quote, another non-ASCII: the SQL hands it over
        "c": billing_row(
            hour="2026-10-01 02", cost=3, labels={"team": 'ml "core"', "owner": "zoë"}
        ),
        "d": billing_row(hour="2026-10-01 03", cost=1e-05),  # a float written 1e-05
        "e": billing_row(hour="2026-10-01 04", cost=-0.0, labels={"team": "a", "env": "b"}),
        "f": billing_row(hour="2026-10-01 05", cost=7, labels=None),  # null, not []
        "g": billing_row(hour="2026-10-01 06", cost=0.1234567891),  # 10 places: rounded
        "h": billing_row(hour="2026-10-01 07", cost=12.5, currency="EUR", rate=0.8912345678901234),
        "i": billing_row(hour="2026-10-01 08", end_hour="2026-10-01 03", cost=7),  # bad
        # a usage amount past 10^15 (bytes): the limits compare it exactly on both engines
        "j": billing_row(
            hour="2026-10-01 09",
            cost=2.5,
            sku="Storage PD Capacity",
            usage_seconds=7236160900300800,
        ),
        "m": billing_row(hour="2026-10-01 10", cost=1, labels={"team": "x"}),
        # a NUMERIC price of 29 significant digits: the row id's Decimal.normalize() keeps 28
        "n": billing_row(hour="2026-10-01 11", cost=4),
        # a rate of 2e10: the normaliser's rate.quantize(1e-18) fails (quarantined)
        "o": billing_row(hour="2026-10-01 12", cost=4, currency="XYZ", rate=2e10),
    }
    rows["n"]["price"] = {"effective_price": "12345678901234567890.123456789", "unit": "hour"}
    rows["m"]["labels"].append({"key": "team", "value": "y"})  # a key twice: the later wins
    rows["k"] = dict(rows["a"])  # the same row twice in the table
    for row in rows.values():
        row["invoice"] = {"month": row["invoice"]["month"]}
    return list(rows.values())


@pytest.fixture(scope="module")
def export_table(
    bigquery_emulator: BigQueryEmulator, tmp_path_factory: pytest.TempPathFactory
) -> str:
    path = write_ndjson(tmp_path_factory.mktemp("export") / "rows.ndjson", _rows())
    bigquery_emulator.load([path], TABLE)
    return TABLE


def _config(root: Path, endpoint: str, dataset: str, table: str = TABLE) -> Config:
    path = root / f"{dataset}.yaml"
    path.write_text(
        f"""
warehouse: {{kind: bigquery, project: {PROJECT}, dataset: {dataset}, endpoint: "{endpoint}"}}
history_start: 2026-10-01
sources:
  gcp_billing:
    bigquery: {{table: {table}, endpoint: "{endpoint}", max_bytes_billed: 5000000}}
"""
    )
    return load_config(path)


def _take(
    config: Config, warehouse: BigQueryWarehouse, log: list[str] | None = None
) -> tuple[int, int, int]:
    """One run's billing export step, as the asset takes it: (new, already taken, newly
    quarantined)."""
    stats = BillingRead()
    limits, said = run_limits(config, NOW), (log if log is not None else []).append
    new, reread = take_export(config, warehouse, stats, NOW, None, limits, said)
    return new, reread, store_quarantine(warehouse, stats.quarantined)


def _table(warehouse: BigQueryWarehouse, name: str, order: str) -> list[dict[str, Any]]:
    rows = warehouse.query(f"SELECT * FROM {name} ORDER BY {order}").to_pylist()
    for row in rows:
        for key in ("labels", "system_labels", "project_labels"):
            if isinstance(row.get(key), str):
                row[key] = json.loads(row[key])
        row.pop("quarantined_at", None)
    return rows


def test_bigquery_warehouse_reads_the_export_in_place_as_read_out(
    bigquery_emulator: BigQueryEmulator,
    export_table: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    endpoint = bigquery_emulator.endpoint
    here = BigQueryWarehouse(PROJECT, "in_place", endpoint=endpoint)
    out = BigQueryWarehouse(PROJECT, "read_out", endpoint=endpoint)
    here_config, out_config = (
        _config(tmp_path, endpoint, "in_place"),
        _config(tmp_path, endpoint, "read_out"),
    )
    for warehouse in (here, out):
        warehouse.ensure_schema()
    assert in_place_export(here_config, here) is not None

    # 14 rows: 12 good, of which k is a again (one row id); i ends before it starts, o's rate
    # fails. In place: 7 plain (a b e f h j k); c d g m n handed over, and i o (quarantined).
    before, said = len(bigquery_emulator.queries()), []
    assert _take(here_config, here, said) == (11, 1, 2)
    # a, b, e, f, h, j, k plain (k's row id is a's: 6 new), c, d, g, i, m, n, o handed over
    assert "14 export rows read in place: 7 written by SQL (6 new), 7 handed" in " ".join(said)
    ran = [
        sql for sql, _ in bigquery_emulator.queries()[: len(bigquery_emulator.queries()) - before]
    ]
    with monkeypatch.context() as patch:  # today's path: every row read out, row by row
        patch.setattr(export_module, "in_place_export", lambda *_: None)
        assert _take(out_config, out) == (11, 1, 2)

    lines = _table(here, "billing_line_items", "row_id")
    assert lines == _table(out, "billing_line_items", "row_id")
    assert _table(here, "quarantine", "quarantine_id") == _table(out, "quarantine", "quarantine_id")
    by_hour = {r["usage_start"].hour: r for r in lines}
    assert len(lines) == 11 and {r["source"] for r in lines} == {source_name(TABLE)}
    # b: 15037.5 JPY / 150.123 = 100.167862353 USD; credits -1503.75 - 0.5 = -1504.25 JPY
    # = -10.020449898 USD (half to even at 9 places).
    assert by_hour[1]["cost_usd"] == _usd("15037.5", "150.123") == Decimal("100.167862353")
    assert by_hour[1]["credits_total"] == Decimal("-1504.25")
    assert by_hour[1]["credits_total_usd"] == _usd("-1504.25", "150.123")
    assert by_hour[1]["currency_conversion_rate"] == Decimal("150.123")
    # h: 12.5 EUR at 0.8912345678901234 (the float's shortest text) = 14.025623443 USD
    assert by_hour[7]["cost_usd"] == _usd("12.5", "0.8912345678901234")
    assert by_hour[3]["cost"] == Decimal("0.00001")  # 1e-05
    assert by_hour[6]["cost"] == Decimal("0.123456789")  # 0.1234567891, half to even
    assert by_hour[4]["cost"] == 0  # -0.0
    assert by_hour[2]["labels"] == {"team": 'ml "core"', "owner": "zoë"}
    assert by_hour[5]["labels"] == {} and by_hour[10]["labels"] == {"team": "y"}
    assert by_hour[0]["accelerator_seconds"] == Decimal(28800)  # 8 h of one H100
    assert by_hour[9]["accelerator_type"] is None  # storage
    assert by_hour[9]["usage_amount"] == Decimal(7236160900300800)
    # In place, no export row was read out: the table is read by the CREATE TABLE ... AS of
    # the model (its partition filter in it) and the one-column SKU query, nothing else.
    reads = [sql for sql in ran if TABLE in sql]
    assert len(reads) == 2 and not any(sql.lstrip().startswith("SELECT *") for sql in reads)
    assert all("_PARTITIONTIME >= TIMESTAMP(@since_day)" in sql for sql in reads)

    # A rerun: every row is read again, none is new, nothing changes.
    assert _take(here_config, here) == (0, 12, 0)
    assert _table(here, "billing_line_items", "row_id") == lines
    # A late credit for Oct 1, exported Oct 9 (a later partition): taken once.
    late = billing_row(
        hour="2026-10-01 00", cost=0, credits=[credit("-5.005", "PROMOTION")],
        export_time="2026-10-09 06:00:00 UTC",
    )  # fmt: skip
    late["invoice"] = {"month": late["invoice"]["month"]}
    bigquery_emulator.load([write_ndjson(tmp_path / "late.ndjson", [late])], TABLE)
    new, _, _ = _take(here_config, here)
    assert new == 1
    assert len(_table(here, "billing_line_items", "row_id")) == 12
    # The scan is bounded: the watermark is now Oct 9 06:00, so the next read starts at
    # Oct 6 06:00 (trailing_days 3) and finds only the late row, already taken.
    assert _take(here_config, here) == (0, 1, 0)
    # No scratch table is left beside the warehouse's.
    tables = {t.name for t in bq.dataset_tables(here.client, here.dataset_id)}
    assert not any("__scratch_" in name for name in tables)


def test_bigquery_warehouse_in_place_model_runs_on_duckdb(
    bigquery_emulator: BigQueryEmulator, export_table: str
) -> None:
    """The model in DuckDB over the export rows as the client returns them: every plain row is
    the normaliser's row, column for column; the others are marked for it."""
    client = bigquery_emulator.client()
    rows = bq.run_query(client, f"SELECT * FROM `{TABLE}`", None, 10**9)
    records = rows.to_pylist()
    pairs = {(r["service"]["description"], r["sku"]["description"]) for r in records}
    skus, units = sku_lookups(pairs)
    params = {
        "earliest": DEFAULT_LIMITS.earliest,
        "latest": DEFAULT_LIMITS.latest,
        "max_money": DEFAULT_LIMITS.max_money,
        "max_usage": DEFAULT_LIMITS.max_usage,
        "max_accelerator_seconds": DEFAULT_LIMITS.max_accelerator_seconds,
        "max_span_us": 366 * 86_400 * 1_000_000,
        "ingested_at": NOW,
        "source": "s",
    }
    with ArrowSQL() as engine:
        for name, table in (("billing_export", rows), ("skus", skus), ("units", units)):
            engine.register(name, table)
        out = engine.run(SQL.file(MODEL).text, params)
    assert isinstance(out, pa.Table) and out.num_rows == len(records)
    plain = set()
    for record, got in zip(records, out.to_pylist(), strict=True):
        if not got["plain"]:
            continue
        plain.add(record["usage_start_time"].hour)
        want = normalise(record, "s", 0, NOW)
        for column, value in want.items():
            have = got[column]
            if column in ("labels", "system_labels", "project_labels"):
                have, value = sorted(have), sorted(value)
            if column == "source_line":
                continue
            assert have == value, (column, have, value)
    # a (and k, and the late credit) b e f h j: not c d g i m n o (hours 2, 3, 6, 8, 10-12)
    assert plain == {0, 1, 4, 5, 7, 9}


def test_bigquery_warehouse_reads_out_an_export_with_a_field_it_does_not_know(
    bigquery_emulator: BigQueryEmulator, tmp_path: Path
) -> None:
    """A column Google adds is in the row id and in extra_fields, which the model does not
    write: such a table is read out, row by row, as before (and an empty one reads nothing)."""
    table = TABLE.replace("export_in_place", "export_new_field")
    fields = (*EXPORT_FIELDS, ExportField("new_google_field", "STRING", "NULLABLE"))
    bq.create_day_partitioned_table(bigquery_emulator.client(), table, fields)
    row = billing_row(hour="2026-10-01 00", cost="5", new_google_field="x")
    row["invoice"] = {"month": row["invoice"]["month"]}
    path = write_ndjson(tmp_path / "rows.ndjson", [row])
    bq.append_file(bigquery_emulator.client(), table, path)
    endpoint = bigquery_emulator.endpoint
    config = _config(tmp_path, endpoint, "new_field", table)
    warehouse = BigQueryWarehouse(PROJECT, "new_field", endpoint=endpoint)
    warehouse.ensure_schema()
    assert _take(config, warehouse) == (1, 0, 0)
    (line,) = _table(warehouse, "billing_line_items", "row_id")
    assert line["extra_fields"] == '{"new_google_field": "x"}' and line["cost"] == Decimal(5)


def test_bigquery_warehouse_in_place_model_transpiles_with_its_bounds_in_the_scan() -> None:
    """On BigQuery itself: the elements of a repeated record in their order (WITH OFFSET), the
    hex digest (TO_HEX: lower-case), and the export's bounds in the model's own scan of it."""
    bounded = "SELECT * FROM `a-b.c.t` WHERE _PARTITIONTIME >= TIMESTAMP(@since_day)"
    sources = (("billing_export", bounded), ("skus", "p.d.skus_x"), ("units", "p.d.units_x"))
    sql = to_bigquery(SQL.file(MODEL).text, "p.d", True, sources)
    assert "FROM `a-b.c.t` AS e WHERE _PARTITIONTIME >= TIMESTAMP(@since_day)" in sql
    assert "TO_HEX(SHA256(" in sql and "JOIN `p`.d.skus_x AS k" in sql
    assert (
        sql.count("WITH OFFSET AS element_at") == sql.count("FROM UNNEST(") - 5
    )  # sums, distinct keys: no order
    assert "TRANSFORM(" not in sql and "MAP_FROM_ENTRIES" not in sql and "FORMAT_DATE" not in sql
