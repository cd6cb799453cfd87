"""Build the warehouse from hand-written rows and read the marts back."""

from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from settings import load_config
from pipelines.runner import run_pipeline
from tests.conftest import write_ndjson


class Books:
    def __init__(self, root: Path):
        self.root = root

    def build(self, billing: list, runs: list) -> "Books":
        write_ndjson(self.root / "billing" / "x.ndjson", billing)
        write_ndjson(self.root / "jobs" / "runs.jsonl", runs)
        config_path = self.root / "flopledger.yaml"
        report = run_pipeline(load_config(config_path), config_path)
        assert report.succeeded, report.failures
        failed = [c for c in report.checks if not c.passed and c.severity == "ERROR"]
        assert not failed, failed
        self.report = report
        return self

    def rows(self, sql: str, params=None) -> list[dict]:
        con = duckdb.connect(str(self.root / "w.duckdb"), read_only=True)
        try:
            cur = con.execute(sql, params)
            names = [d[0] for d in cur.description]
            return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
        finally:
            con.close()

    def one(self, sql: str, params=None):
        return next(iter(self.rows(sql, params)[0].values()))

    def run_cost(self, run_id: str) -> Decimal:
        return self.one("SELECT effective_cost FROM cost_per_run WHERE run_id = ?", [run_id])

    def idle(self, resource: str, hour: str) -> dict:
        return self.rows(
            "SELECT * FROM idle_capacity WHERE resource_name = ? AND hour = CAST(? AS TIMESTAMP)",
            [resource, hour],
        )[0]


@pytest.fixture
def books(project_dir) -> Books:
    return Books(project_dir)
