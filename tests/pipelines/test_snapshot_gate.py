"""The snapshot readers use is an asset of the marts job, gated by the books' blocking checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from flopledger.models.sql_files import SqlFile
from flopledger.pipelines import checks
from flopledger.pipelines.runner import run_pipeline
from flopledger.settings import load_config
from tests.conftest import billing_row, run_record, write_ndjson

OUT_BY_ONE_CENT = "SELECT 'total' AS check_name, CAST(0.01 AS DECIMAL(38, 9)) AS difference"


def _replaced(monkeypatch: pytest.MonkeyPatch, name: str, sql: str) -> None:
    """Check `name` runs `sql` instead of its file (the rows it returns break it)."""
    real = checks.check_file

    def file(wanted: str) -> SqlFile:
        found = real(wanted)
        return (
            SqlFile(found.path, found.kind, found.about, sql, row=found.row)
            if wanted == name
            else found
        )

    monkeypatch.setattr(checks, "check_file", file)


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
    _replaced(monkeypatch, "books_close", OUT_BY_ONE_CENT)
    config = _project(project_dir)
    outcome = run_pipeline(load_config(config), config)
    failed = [(c.name, c.severity) for c in outcome.checks if not c.passed]
    assert ("books_close", "ERROR") in failed
    assert outcome.snapshot is None
    assert outcome.succeeded, outcome.failures  # a failed check, not a failed run
    assert outcome.marts_not_rebuilt is None  # every mart built; only the snapshot withheld
    assert not (project_dir / "w.snapshot.duckdb").exists()  # readers keep the last good one


def test_a_failed_blocking_check_mid_graph_says_the_marts_were_not_rebuilt(
    project_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 18 review item 1: run_held_hours.held_within_placements failing stopped ~35 steps,
    yet `run` exited 0 and printed the previous run's figures as if current. Now the report says
    the marts were not rebuilt and `flopledger run` exits 1."""
    import argparse

    from flopledger.cli.commands.run import run

    _replaced(monkeypatch, "held_within_placements", "SELECT 1 AS n")
    config = _project(project_dir)
    args = argparse.Namespace(
        config=str(config),
        start=None,
        end=None,
        strict=False,
        dry_run=False,
        full=False,
        telemetry=False,
        samples_only=False,
    )
    assert run(args) == 1
    out = capsys.readouterr().out
    assert (
        "marts not rebuilt: held_within_placements on run_held_hours (a blocking check) failed;"
        in out
    )
    assert "figures below are from the previous run" in out
    assert " step(s) not run (" in out
