"""`flopledger --log-format json` and FLOPLEDGER_LOG_FORMAT=json (issue 39, item 3): every line
the CLI, the agent and a Dagster run write to stderr is one JSON object with time, level,
job, run id, step, source and message; no ANSI colours. Each command runs as a user runs it,
in its own process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import HANG_S, billing_row, run_record, write_config, write_ndjson

KEYS = {"time", "level", "job", "run_id", "step", "source", "message"}
CONFIG = (
    "warehouse: {path: w.duckdb}\nsources:\n  gcp_billing: {paths: ['billing/*.ndjson']}\n"
    "  jobs: {paths: ['jobs/*.jsonl']}\n"
)


def _flopledger(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flopledger.cli.main", *argv],
        capture_output=True,
        text=True,
        timeout=HANG_S,
        env={**os.environ, **(env or {})},
    )


def _objects(stderr: str) -> list[dict]:
    """Every stderr line as JSON (a line that is not fails the test), each with KEYS."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    objects = [json.loads(line) for line in lines]
    assert all(set(o) >= KEYS for o in objects)
    assert "\x1b[" not in stderr  # no ANSI colour codes
    return objects


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write_ndjson(tmp_path / "billing" / "x.ndjson", [billing_row()])
    write_ndjson(tmp_path / "jobs" / "r.jsonl", [run_record("r")])
    return write_config(tmp_path, CONFIG)


def test_a_run_logs_json_lines_with_its_jobs_runs_and_steps(project: Path) -> None:
    done = _flopledger("--log-format", "json", "run", "--config", str(project))
    assert done.returncode == 0, done.stderr[-2000:]
    objects = _objects(done.stderr)
    in_runs = [o for o in objects if o["run_id"]]
    assert {o["job"] for o in in_runs} == {"ingest", "marts"}
    assert {"billing_line_items", "jobs_ingest", "cost_per_run"} <= {o["step"] for o in in_runs}
    assert any(o["message"].startswith("[1/2] ingest:") for o in objects)  # the CLI's own
    assert "billed cost" in done.stdout  # the report stays the report


def test_the_environment_says_json_and_an_error_is_a_json_line(tmp_path: Path) -> None:
    config = write_config(tmp_path, "schedules: {billing: 'every full moon'}\n")
    done = _flopledger("run", "--config", str(config), env={"FLOPLEDGER_LOG_FORMAT": "json"})
    assert done.returncode == 2
    [error] = _objects(done.stderr)
    assert (
        error["level"] == "ERROR" and "schedules.billing: not a cron schedule" in error["message"]
    )


def test_the_agent_logs_json_lines(tmp_path: Path) -> None:
    done = _flopledger(
        "--log-format", "json", "agent", "--spool", str(tmp_path / "spool"),
        "--simulate", "idle", "--gpus", "2", "--duration", "2s", "--minute-seconds", "1",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    objects = _objects(done.stderr)
    assert objects and all(o["source"].startswith("flopledger.collectors.nvml") for o in objects)
    assert any("agent health" in o["message"] for o in objects)


def test_the_daemons_runs_log_json_lines_by_default(project: Path) -> None:
    # A run started as the daemon starts a schedule's: the job and a partition, no run config.
    script = f"""
import warnings; warnings.filterwarnings("ignore")
import dagster as dg
from flopledger.pipelines.definitions import build_definitions
job = build_definitions({str(project)!r}).resolve_job_def("ingest")
result = job.execute_in_process(partition_key="2026-10-01", instance=dg.DagsterInstance.ephemeral())
assert result.success
"""
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=HANG_S,
        env={**os.environ, "FLOPLEDGER_LOG_FORMAT": "json"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    objects = _objects(done.stderr)
    assert objects and {o["job"] for o in objects} == {"ingest"}
    assert all(o["run_id"] and o["step"] for o in objects)
