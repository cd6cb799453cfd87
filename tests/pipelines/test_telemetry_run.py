"""`flopledger run --telemetry`: the hourly tick's run by hand. It loads only the GPU samples of
its day and rebuilds only the marts they feed, through the real Dagster jobs; billing, jobs and
the marts that read neither sample table are left as the day's run left them."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import duckdb
import pytest

from flopledger.cli.main import main
from flopledger.pipelines.runner import run_pipeline
from flopledger.settings import load_config
from flopledger.simulator import simulate

D1, D2 = date(2026, 10, 1), date(2026, 10, 2)


def _count(db: Path, sql: str) -> int:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return int(con.execute(sql).fetchone()[0])  # type: ignore[index]
    finally:
        con.close()


def test_a_telemetry_run_loads_the_samples_and_builds_only_what_they_feed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fleet = simulate(tmp_path, gpus=8, tpu_chips=0, days=2, start=D1, seed=5, telemetry=True)
    config = load_config(fleet.config_path)
    db = Path(config.warehouse.path)
    assert run_pipeline(config, fleet.config_path, D1, D1).succeeded  # day 1 only
    billing_before = _count(db, "SELECT count(*) FROM billing_line_items")
    spend_seq = _count(
        db, "SELECT max(seq) FROM bookkeeping.changes WHERE table_name = 'spend_daily'"
    )

    capsys.readouterr()  # the day's run's progress aside
    code = main(["run", "--config", str(fleet.config_path), "--telemetry",
                 "--from", str(D2), "--to", str(D2)])  # fmt: skip

    assert code == 0
    err = capsys.readouterr().err
    assert "[1/2] telemetry: 1 day(s), 2026-10-02 .. 2026-10-02" in err
    built = set(re.findall(r"^\s+ok\s+(\w+) \(", err, re.MULTILINE))  # the steps run
    # Raw: the GPU samples (TPU: none in this fleet), never billing or jobs.
    assert "gpu_samples" in built
    assert not built & {"billing_line_items", "jobs_ingest", "focus_line_items"}
    # Marts: those reading the samples (the busy hours and what follows from them: idle
    # capacity, chargeback), never those reading only billing or jobs; the snapshot again.
    assert {"resource_hour_busy", "idle_capacity", "team_chargeback", "warehouse_snapshot"} <= built
    assert not built & {"spend_daily", "spend_monthly", "billing_hourly", "run_held_hours"}
    # Day 2's 8 GPUs x 1,440 minutes are in; day 2's billing is not (no ingest ran).
    assert (
        _count(db, f"SELECT count(*) FROM gpu_samples WHERE CAST(minute AS DATE) = '{D2}'")
        == 8 * 1440
    )
    assert _count(db, "SELECT count(*) FROM billing_line_items") == billing_before
    assert (
        _count(db, "SELECT max(seq) FROM bookkeeping.changes WHERE table_name = 'spend_daily'")
        == spend_seq
    )
