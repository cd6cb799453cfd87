"""Dagster's own CLI runs the jobs as a deployment would (its default executor for these
jobs, a real instance) and gives the same books as `flopledger run`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from flopledger.pipelines.runner import run_pipeline
from flopledger.settings import load_config
from flopledger.simulator import simulate
from flopledger.warehouse import open_warehouse
from tests.conftest import HANG_S, REPO

MONEY = "SELECT run_id, effective_cost, allocated_idle_cost FROM cost_per_run ORDER BY run_id"
IDLE = "SELECT sum(unallocated_idle_cost) AS idle, sum(effective_cost) AS paid FROM idle_capacity"


def _dagster(env: dict[str, str], *args: str) -> None:
    dagster = str(Path(sys.executable).parent / "dagster")
    done = subprocess.run(
        [dagster, "job", "execute", "-m", "flopledger.pipelines.definitions", "-a", "defs", *args],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=HANG_S,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "RUN_SUCCESS" in done.stdout + done.stderr


@pytest.mark.slow
def test_dagster_job_execute_ingest_then_marts_matches_flopledger_run(tmp_path: Path) -> None:
    fleet = simulate(tmp_path / "a", gpus=8, tpu_chips=0, days=2, seed=3, telemetry=False)
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    config_b = tmp_path / "b" / "flopledger.yaml"
    reference = run_pipeline(load_config(config_b), config_b)
    assert reference.succeeded, reference.failures

    config_a = load_config(fleet.config_path)
    home = tmp_path / "a" / "dagster_home"
    home.mkdir()
    shutil.copyfile(REPO / "pipelines" / "dagster.yaml", home / "dagster.yaml")
    env = {**os.environ, "DAGSTER_HOME": str(home), "FLOPLEDGER_CONFIG": str(fleet.config_path)}
    days = {"dagster/asset_partition_range_start": "2026-10-01",
            "dagster/asset_partition_range_end": "2026-10-02"}  # fmt: skip
    _dagster(env, "-j", "ingest", "--tags", json.dumps(days))
    _dagster(env, "-j", "marts", "--tags", json.dumps(days))  # the day marts' partitions too

    ours, theirs = (
        open_warehouse(config_a.warehouse),
        open_warehouse(load_config(config_b).warehouse),
    )
    runs = ours.read_query(MONEY).to_pylist()
    assert len(runs) > 0
    assert runs == theirs.read_query(MONEY).to_pylist()  # every run's cost, to the nano-dollar
    assert ours.read_query(IDLE).to_pylist() == theirs.read_query(IDLE).to_pylist()
    assert Path(config_a.warehouse.path).with_name("warehouse.snapshot.duckdb").is_file()
