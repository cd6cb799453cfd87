"""fill_nulls on BigQuery (bqemulator, through the real client): the SKU columns of rows loaded
before they existed are set from the lookup, as on DuckDB (tests/pipelines/
test_billing_sku_columns.py), and only where sku_kind is still null."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from flopledger.collectors.gcp_billing.read import read_billing_files
from flopledger.ingest.gcp_billing.skus import classify_unclassified
from flopledger.warehouse.bigquery import BigQueryWarehouse
from tests.bigquery_emulator import PROJECT, BigQueryEmulator
from tests.conftest import billing_row, write_ndjson

NOW = datetime(2026, 10, 2)
STORAGE = {"id": "95FF-2EF5-5EA1", "description": "Cloud Storage"}
SKU_COLUMNS = "sku_description, pricing_model, sku_kind, is_commitment_fee, commitment_term," \
              " network_traffic, is_egress"  # fmt: skip


def test_bigquery_warehouse_fills_the_sku_columns_of_old_rows(
    bigquery_emulator: BigQueryEmulator, tmp_path: Path
) -> None:
    rows = [
        billing_row(hour="2026-10-01 00", cost=10),
        billing_row(hour="2026-10-01 01", cost=3, resource="cud",
                    sku="Commitment v1: Nvidia H100 80GB GPU in Americas for 1 Year"),
        billing_row(hour="2026-10-01 02", cost="0.60", resource="ckpt", service=STORAGE,
                    sku="Download Worldwide Destinations (excluding Asia & Australia)"),
    ]  # fmt: skip
    table, _ = read_billing_files([write_ndjson(tmp_path / "x.ndjson", rows)], ingested_at=NOW)
    warehouse = BigQueryWarehouse(PROJECT, "fill", endpoint=bigquery_emulator.endpoint)
    warehouse.ensure_schema()
    assert warehouse.insert_new("billing_line_items", table, "row_id") == 3
    query = f"SELECT {SKU_COLUMNS} FROM billing_line_items ORDER BY sku_description"
    loaded = warehouse.query(query).to_pylist()
    # As a warehouse made before the columns has them: null (but the fee row, already done).
    warehouse.execute(
        "UPDATE billing_line_items SET pricing_model = NULL, sku_kind = NULL,"
        " is_commitment_fee = NULL, commitment_term = NULL, network_traffic = NULL,"
        " is_egress = NULL WHERE sku_description NOT LIKE 'Commitment%'"
    )
    assert classify_unclassified(warehouse) == 2
    assert warehouse.query(query).to_pylist() == loaded
    assert [(r["sku_kind"], r["commitment_term"], r["network_traffic"]) for r in loaded] == [
        ("accelerator", "1 Year", None),
        ("network", None, "download"),
        ("accelerator", None, None),
    ]
    assert classify_unclassified(warehouse) == 0
