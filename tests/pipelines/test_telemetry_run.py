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
    # capacity, chargeback) and the snapshot again; never the rest (monthly spend, egress),
    # nor what the fed marts read (billing_hourly, run_held_hours): the day's run built those,
    # as the Dagster instance records, and a telemetry run changes nothing they read.
    assert {"resource_hour_busy", "idle_capacity", "team_chargeback", "warehouse_snapshot"} <= built
    assert not built & {"billing_hourly", "run_held_hours"}
    assert not built & {"spend_monthly", "spend_invoice_daily", "egress_daily"}
    scopes = dict(
        duckdb.connect(str(db), read_only=True)
        .execute("SELECT table_name, scope FROM bookkeeping.builds")
        .fetchall()
    )
    assert scopes["resource_hour_busy"] == "1 day(s) 2026-10-02 .. 2026-10-02"
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


def test_a_telemetry_run_first_builds_what_its_marts_read(tmp_path: Path) -> None:
    # The hourly tick before any daily run (the daemon's first ticks, in either order): the
    # models the telemetry marts read are built too, so the run succeeds and they exist.
    fleet = simulate(tmp_path, gpus=8, tpu_chips=0, days=1, start=D1, seed=5, telemetry=True)
    config = load_config(fleet.config_path)
    report = run_pipeline(config, fleet.config_path, D1, D1, telemetry=True)
    assert report.succeeded, report.failures
    db = Path(config.warehouse.path)
    built = "SELECT count(*) FROM duckdb_tables() WHERE table_name IN ({})"
    names = "'resource_hour_pool', 'resource_hour_utilisation', 'billing_hourly'"
    assert _count(db, built.format(names)) == 3


def test_a_samples_only_tick_loads_the_samples_and_builds_no_mart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The telemetry ticks between marts ticks (schedules.telemetry_marts_every_hours): day 2's
    # samples are loaded, no mart is built, the snapshot is not published again, and the
    # report prints no figures (none was rebuilt). The next marts run takes the samples in.
    fleet = simulate(tmp_path, gpus=8, tpu_chips=0, days=2, start=D1, seed=5, telemetry=True)
    config = load_config(fleet.config_path)
    db = Path(config.warehouse.path)
    assert run_pipeline(config, fleet.config_path, D1, D1).succeeded  # day 1 only
    builds = "SELECT count(*) FROM bookkeeping.builds WHERE scope LIKE '%2026-10-02%'"
    capsys.readouterr()
    code = main(["run", "--config", str(fleet.config_path), "--telemetry", "--samples-only",
                 "--from", str(D2), "--to", str(D2)])  # fmt: skip
    assert code == 0
    captured = capsys.readouterr()
    assert "[2/2] marts: none (--samples-only)" in captured.err
    assert "marts not rebuilt: the samples only (--samples-only)" in captured.out
    assert "snapshot not published: readers keep the last marts run's" in captured.out
    day2 = f"SELECT count(*) FROM gpu_samples WHERE CAST(minute AS DATE) = '{D2}'"
    assert _count(db, day2) == 8 * 1440
    assert _count(db, builds) == 0  # no mart built for day 2
    # The marts tick after: day 2's busy hours are built from the samples loaded before.
    report = run_pipeline(config, fleet.config_path, D2, D2, telemetry=True)
    assert report.succeeded, report.failures
    busy = "SELECT count(*) FROM intermediate.resource_hour_busy WHERE CAST(hour AS DATE) = '2026-10-02'"
    assert _count(db, busy) > 0
    assert main(["run", "--config", str(fleet.config_path), "--samples-only"]) == 2
