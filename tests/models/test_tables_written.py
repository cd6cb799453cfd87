"""Which tables a statement may change (models/lineage.py's tables_written): what a statement
run through DuckDBWarehouse.execute records, so that a publish of changes takes it in."""

from __future__ import annotations

import pytest

from flopledger import models
from flopledger.models.lineage import tables_written


@pytest.mark.parametrize(
    ("sql", "written"),
    [
        ("UPDATE alerts SET notified_at = NULL WHERE alert_id = $a", {"alerts"}),
        ("INSERT INTO probe_results (result_id, node) VALUES (?, ?)", {"probe_results"}),
        ("DELETE FROM intermediate.billing_hourly WHERE hour < ?", {"billing_hourly"}),
        ("CREATE OR REPLACE TABLE t AS SELECT ? AS v", {"t"}),
        ("DROP TABLE IF EXISTS managed_requests", {"managed_requests"}),
        ("ALTER TABLE managed_costs ADD COLUMN note VARCHAR", {"managed_costs"}),
        ("INSERT INTO a SELECT * FROM b; DELETE FROM c", {"a", "c"}),
        ("SELECT count(*) FROM jobs", set()),  # reads only
        ("CREATE MACRO plus_one(x) AS x + 1", set()),  # no table's rows
        ("COMMENT ON TABLE jobs IS 'x'", set()),
    ],
)
def test_the_tables_a_statement_writes(sql: str, written: set[str]) -> None:
    assert tables_written(sql) == written


def test_what_cannot_be_told_is_none() -> None:
    assert tables_written("CHECKPOINT") is None  # SQLGlot reads it as a bare command


def test_the_alert_delivery_update_names_alerts() -> None:
    assert tables_written(models.query_sql("alert_delivery_update")) == {"alerts"}
