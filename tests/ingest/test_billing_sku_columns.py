"""A warehouse loaded before billing_line_items had its SKU columns (sku_kind, is_commitment_fee,
commitment_term, network_traffic, is_egress) ends up classified like a fresh one: ensure_schema
adds them as nulls, and the next billing run fills them (ingest/gcp_billing/skus.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from flopledger.ingest.gcp_billing.skus import classify_unclassified
from flopledger.pipelines.runner import run_pipeline
from flopledger.settings import load_config
from flopledger.warehouse.duckdb import DuckDBWarehouse
from tests.conftest import billing_row, write_ndjson

REPO = Path(__file__).resolve().parents[2]
NEW_COLUMNS = ("sku_kind", "is_commitment_fee", "commitment_term", "network_traffic", "is_egress")
STORAGE = {"id": "95FF-2EF5-5EA1", "description": "Cloud Storage"}


def _billing() -> list[dict]:
    gib = 2**30
    return [
        billing_row(hour="2026-10-01 00", cost=80),
        billing_row(hour="2026-10-01 00", sku="A3 Instance Core running in Americas", cost=4),
        billing_row(hour="2026-10-01 00", cost=60, resource="cud-h100",
                    sku="Commitment v1: Nvidia H100 80GB GPU in Americas for 1 Year"),
        billing_row(hour="2026-10-01 01", sku="Reserved H200 141GB GPU running in Netherlands",
                    cost=9),
        billing_row(hour="2026-10-01 02", resource=None, cost="1.20", usage_seconds=10 * gib,
                    sku="Network Internet Data Transfer Out from Americas to Americas"),
        billing_row(hour="2026-10-01 02", resource="ckpt", cost="0.60", service=STORAGE,
                    sku="Download Worldwide Destinations (excluding Asia & Australia)"),
        billing_row(hour="2026-10-01 03", resource="ckpt", cost="2.60", service=STORAGE,
                    sku="Standard Storage US Multi-region"),
    ]  # fmt: skip


def _old_ddl() -> str:
    """billing_line_items.sql as it was before the SKU columns: today's, less those lines."""
    lines = (REPO / "models/raw/billing_line_items.sql").read_text().splitlines()
    kept = [line for line in lines if line.strip().split(" ")[0] not in NEW_COLUMNS]
    assert len(kept) == len(lines) - len(NEW_COLUMNS)
    return "\n".join(kept)


def _project(root: Path) -> Path:
    write_ndjson(root / "billing" / "x.ndjson", _billing())
    write_ndjson(root / "jobs" / "runs.jsonl", [])
    path = root / "flopledger.yaml"
    path.write_text(
        "warehouse: {kind: duckdb, path: w.duckdb}\n"
        "sources:\n  gcp_billing: {paths: [billing/*.ndjson]}\n  jobs: {paths: [jobs/*.jsonl]}\n"
    )
    return path


def _run(config_path: Path) -> DuckDBWarehouse:
    report = run_pipeline(load_config(config_path), config_path)
    assert report.succeeded, report.failures
    return DuckDBWarehouse(config_path.parent / "w.duckdb")


def _table(warehouse: DuckDBWarehouse, sql: str) -> list[dict]:
    return warehouse.query(sql).to_pylist()


BILLING = "SELECT * EXCLUDE (ingested_at) FROM billing_line_items ORDER BY row_id"
MARTS = {
    "spend_daily": "SELECT * FROM spend_daily ORDER BY ALL",
    "egress_daily": "SELECT * FROM egress_daily ORDER BY ALL",
    "storage_growth": "SELECT * FROM storage_growth ORDER BY ALL",
    "billing_hourly": "SELECT * EXCLUDE (provider) FROM billing_hourly ORDER BY ALL",
    "cost_explorer_rows": "SELECT row_id, pricing_model, effective_cost FROM cost_explorer_rows"
    " ORDER BY ALL",
}


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> DuckDBWarehouse:
    return _run(_project(tmp_path_factory.mktemp("fresh")))


def test_an_old_warehouse_ends_up_classified_like_a_fresh_one(fresh, tmp_path: Path) -> None:
    # The old warehouse holds the same rows as an older loader wrote them (no SKU columns).
    config_path = _project(tmp_path)
    old_columns = [c for c in fresh.query(BILLING).column_names if c not in NEW_COLUMNS]
    rows = fresh.query(f"SELECT {', '.join(old_columns)}, ingested_at FROM billing_line_items")
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    con.execute(_old_ddl())
    con.register("rows", rows)
    con.execute("INSERT INTO billing_line_items BY NAME SELECT * FROM rows")
    con.close()

    old = _run(config_path)  # ensure_schema adds the columns; the billing run fills them
    assert _table(old, BILLING) == _table(fresh, BILLING)
    for mart, sql in MARTS.items():
        assert _table(old, sql) == _table(fresh, sql), mart
    # Hand-worked: the 7 rows' kinds, the fee's term, the two network rows' traffic.
    kinds = _table(
        old,
        "SELECT sku_description, sku_kind, is_commitment_fee, commitment_term, network_traffic,"
        " is_egress, pricing_model FROM billing_line_items ORDER BY sku_description",
    )
    assert [tuple(r.values()) for r in kinds] == [
        ("A3 Instance Core running in Americas", "cores", False, None, None, None, "on_demand"),
        ("Commitment v1: Nvidia H100 80GB GPU in Americas for 1 Year", "accelerator", True,
         "1 Year", None, None, "commitment"),
        ("Download Worldwide Destinations (excluding Asia & Australia)", "network", False, None,
         "download", True, "on_demand"),
        ("Network Internet Data Transfer Out from Americas to Americas", "network", False, None,
         "internet", True, "on_demand"),
        ("Nvidia H100 80GB GPU running in Americas", "accelerator", False, None, None, None,
         "on_demand"),
        ("Reserved H200 141GB GPU running in Netherlands", "accelerator", False, None, None, None,
         "reserved"),
        ("Standard Storage US Multi-region", "storage", False, None, None, None, "on_demand"),
    ]  # fmt: skip
    # Once filled, a run finds nothing left to classify.
    assert classify_unclassified(old) == 0


def test_the_fill_sets_only_rows_still_unclassified(fresh, tmp_path: Path) -> None:
    # A row classified already keeps what it has, even where the rules would now say otherwise.
    path = tmp_path / "copy.duckdb"
    shutil.copy(fresh.path, path)
    warehouse = DuckDBWarehouse(path)
    warehouse.execute(
        "UPDATE billing_line_items SET sku_kind = 'other'"
        " WHERE sku_description = 'Standard Storage US Multi-region'"
    )
    warehouse.execute(
        "UPDATE billing_line_items SET sku_kind = NULL, is_commitment_fee = NULL"
        " WHERE sku_description LIKE 'Commitment%'"
    )
    assert classify_unclassified(warehouse) == 1  # the fee row
    got = _table(warehouse, "SELECT sku_description, sku_kind, is_commitment_fee"
                            " FROM billing_line_items WHERE resource_name IN ('cud-h100', 'ckpt')"
                            " AND sku_description NOT LIKE 'Download%' ORDER BY 1")  # fmt: skip
    assert got == [
        {"sku_description": "Commitment v1: Nvidia H100 80GB GPU in Americas for 1 Year",
         "sku_kind": "accelerator", "is_commitment_fee": True},
        {"sku_description": "Standard Storage US Multi-region", "sku_kind": "other",
         "is_commitment_fee": False},
    ]  # fmt: skip
