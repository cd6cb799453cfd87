"""A warehouse made before the agent's pod columns (spool schema 2) gains them on
ensure_schema: its rows keep their values with null pods, and new rows load."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import duckdb

from flopledger.collectors.nvml.schema import rows_to_table
from flopledger.warehouse.duckdb import DuckDBWarehouse

REPO = Path(__file__).resolve().parents[2]


def old_ddl() -> str:
    """gpu_samples.sql as it was before the pod columns: today's, less those three lines."""
    lines = (REPO / "models/raw/gpu_samples.sql").read_text().splitlines()
    kept = [line for line in lines if not line.strip().startswith("pod_")]
    status = next(i for i, line in enumerate(kept) if line.strip().startswith("status "))
    kept[status] = kept[status].replace("NOT NULL,", "NOT NULL", 1)
    ddl = "\n".join(kept)
    assert "pod_" not in ddl.split("--")[0] and ddl.count("status VARCHAR NOT NULL ") == 1
    return ddl


def test_warehouse_adds_agent_pod_columns_to_an_old_gpu_samples(tmp_path: Path) -> None:
    path = tmp_path / "old-warehouse.duckdb"  # a catalog name that is no plain identifier
    con = duckdb.connect(str(path))
    con.execute(old_ddl())
    con.execute(
        "INSERT INTO gpu_samples (sample_id, minute, node, gpu_index, samples, status) "
        "VALUES ('old', TIMESTAMP '2026-01-01 00:00', 'n0', 0, 60, 'ok')"
    )
    con.close()

    warehouse = DuckDBWarehouse(path)
    warehouse.ensure_schema()
    warehouse.ensure_schema()  # a second time changes nothing
    new = rows_to_table(
        [
            {
                "minute": datetime(2026, 1, 2),
                "node": "n1",
                "gpu_index": 0,
                "samples": 60,
                "status": "ok",
                "pod_namespace": "ml",
                "pod_name": "train",
                "pod_uid": "u1",
            }
        ]
    )
    assert warehouse.replace_days("gpu_samples", "minute", [date(2026, 1, 2)], new) == 1
    rows = warehouse.query(
        "SELECT sample_id = 'old' AS old, node, pod_namespace, pod_name, pod_uid "
        "FROM gpu_samples ORDER BY minute"
    ).to_pylist()
    assert rows == [
        {"old": True, "node": "n0", "pod_namespace": None, "pod_name": None, "pod_uid": None},
        {"old": False, "node": "n1", "pod_namespace": "ml", "pod_name": "train", "pod_uid": "u1"},
    ]
    schemas = warehouse.query(
        "SELECT DISTINCT schema_name FROM duckdb_tables() ORDER BY schema_name"
    ).to_pylist()
    # the scratch schema is gone; the warehouse's own bookkeeping stays
    assert schemas == [{"schema_name": "bookkeeping"}, {"schema_name": "main"}]
