"""The snapshot readers use is an asset of the marts job, gated by the books' blocking checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.marts import checks
from pipelines.runner import run_pipeline
from settings import load_config
from tests.conftest import billing_row, run_record, write_ndjson

OUT_BY_ONE_CENT = "SELECT 'total' AS check_name, CAST(0.01 AS DECIMAL(38, 9)) AS difference"


def _project(project_dir: Path) -> Path:
    write_ndjson(project_dir / "billing" / "x.ndjson", [billing_row()])
    write_ndjson(project_dir / "jobs" / "runs.jsonl", [run_record("r")])
    return project_dir / "flopledger.yaml"


def test_a_run_whose_books_close_publishes_the_snapshot(project_dir: Path) -> None:
    config = _project(project_dir)
    outcome = run_pipeline(load_config(config), config)
    assert outcome.succeeded, outcome.failures
    assert outcome.snapshot == str(project_dir / "w.snapshot.duckdb")
    assert Path(outcome.snapshot).is_file()


def test_books_out_by_a_cent_publish_nothing(
    project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = checks.query_sql
    monkeypatch.setattr(
        checks,
        "query_sql",
        lambda name: OUT_BY_ONE_CENT if name == "books_differences" else real(name),
    )
    config = _project(project_dir)
    outcome = run_pipeline(load_config(config), config)
    failed = [(c.name, c.severity) for c in outcome.checks if not c.passed]
    assert ("books_close", "ERROR") in failed
    assert outcome.snapshot is None
    assert outcome.succeeded, outcome.failures  # a failed check, not a failed run
    assert not (project_dir / "w.snapshot.duckdb").exists()  # readers keep the last good one
