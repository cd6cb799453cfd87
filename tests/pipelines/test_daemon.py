"""Scheduled runs as deployed: a real `dagster-daemon run` over a simulated fleet.

Both schedules tick once, at a minute already past when the daemon starts: the test records
each schedule's state in the instance first, started a little before that minute, so the
daemon's first scheduler iteration finds the tick due whenever it gets there (however long it
takes to load), as it catches up a tick it missed while down. The daemon runs the ingest and
telemetry jobs, the `marts_after_ingest` sensor follows each with a marts run, and the
`alert_notifier` posts the alerts to a webhook on 127.0.0.1. The books must equal those of
`flopledger run` over the same inputs, to the nano-dollar. A second daemon, its queue full (a
writer under way holding the warehouse, a marts run queued behind it), still delivers every
alert within the notifier's first two ticks.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import dagster as dg
import duckdb
import pytest
from dagster._core.definitions.run_request import InstigatorType
from dagster._core.remote_origin import RemoteInstigatorOrigin, RemoteRepositoryOrigin
from dagster._core.scheduler.instigation import (
    InstigatorState,
    InstigatorStatus,
    ScheduleInstigatorData,
    TickStatus,
)
from dagster._core.storage.dagster_run import DagsterRun
from dagster._core.workspace.load import location_origins_from_yaml_paths

from flopledger.budgets.delivery_store import DeliveryStore
from flopledger.cli.main import main
from flopledger.pipelines.asset_jobs import WRITER_TAGS
from flopledger.pipelines.instance import prepare_dagster_home
from flopledger.pipelines.run_tags import CLI_TAG
from flopledger.settings import load_config
from tests.budgets.test_notifier import Receiver
from tests.conftest import HANG_S, REPO

pytestmark = pytest.mark.slow

DAYS = 3
WEBHOOK_ENV = "FLOPLEDGER_WEBHOOK_ONCALL"  # the channel the simulated budgets.yaml names
HOOK_PATH = "/oncall"
SCHEDULES = ("billing_daily", "telemetry_hourly")
REPOSITORY = "__repository__"  # the name Dagster gives the one repository of a Definitions
MONEY_MARTS = (
    "cost_per_run",
    "cost_per_job",
    "idle_capacity",
    "spend_daily",
    "team_chargeback",
    "books",
)
NOT_COMPARED = {"ingested_at", "source", "file", "path"}  # when and where, not what
# Money is DECIMAL and compared exactly; a DOUBLE sum (hours, utilisation) may differ in its
# last bits from run to run (DuckDB adds in parallel), so those are compared to 1e-6.
FLOATS = {"DOUBLE", "FLOAT", "REAL"}
FLOAT_DIGITS = 6
FAILED = {dg.DagsterRunStatus.FAILURE, dg.DagsterRunStatus.CANCELED}
DONE = {dg.DagsterRunStatus.SUCCESS, *FAILED}
TICK_FAILED = {TickStatus.SKIPPED, TickStatus.FAILURE}
NOTHING_LEFT = "sent 0, failed 0, waiting 0"  # the notifier's tick when all is delivered
SENT = re.compile(r"sent (\d+),")
SLACK_ALERT_ID = re.compile(r"`([^`]+)`$")


def _simulate(out: Path, start: date) -> Path:
    args = ["simulate", "--out", str(out), "--gpus", "8", "--tpu-chips", "4"]
    assert main([*args, "--days", str(DAYS), "--start", start.isoformat()]) == 0
    return out / "flopledger.yaml"


def _day_with_room() -> date:
    """Today (UTC), once at least a quarter of an hour of it is left for the reference run:
    `flopledger run` takes the wall clock's day as its own, and the window, the budgets'
    periods and alert ids all depend on the day, which must be the tick's."""
    now = datetime.now(UTC)
    midnight = datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), UTC)
    if midnight - now < timedelta(minutes=15):
        time.sleep((midnight - now).total_seconds() + 1)
    return datetime.now(UTC).date()


def _once_at(tick: datetime) -> str:
    """Both schedules at that one minute (a cron of every minute would tick again and again);
    the marts after every telemetry tick, whichever hour the wall clock puts it in."""
    cron = f"{tick.minute} {tick.hour} * * *"
    every = "telemetry_marts_every_hours: 1"
    return f'schedules: {{billing: "{cron}", telemetry: "{cron}", {every}}}\n'


def _started_before(instance: dg.DagsterInstance, tick: datetime, cron: str) -> None:
    """Each schedule's state as the daemon would record it on first sight (running as its
    code declares), but started 30 s before the tick: the daemon launches every tick since a
    schedule's start, so it finds this one due on its first iteration. The origin is the one
    the daemon builds from workspace.yaml, so the daemon reads these states as its own."""
    (location,) = location_origins_from_yaml_paths([str(REPO / "workspace.yaml")])
    repository = RemoteRepositoryOrigin(location, REPOSITORY)
    for name in SCHEDULES:
        origin = RemoteInstigatorOrigin(repository, name)
        assert (
            instance.get_instigator_state(origin.get_id(), origin.get_selector().get_id()) is None
        )
        data = ScheduleInstigatorData(cron, (tick - timedelta(seconds=30)).timestamp())
        state = InstigatorState(
            origin, InstigatorType.SCHEDULE, InstigatorStatus.DECLARED_IN_CODE, data
        )
        instance.add_instigator_state(state)


def _daemon(home: Path, config: Path, hook: Receiver, log: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "DAGSTER_HOME": str(home),
        "FLOPLEDGER_CONFIG": str(config),
        WEBHOOK_ENV: hook.url + HOOK_PATH,
    }
    with log.open("wb") as out:  # the child keeps its own handle
        return subprocess.Popen(
            [str(Path(sys.executable).parent / "dagster-daemon"), "run", "-w", "workspace.yaml"],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def _stop(daemon: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL if it is still there after a hang guard's wait."""
    if daemon.poll() is None:
        daemon.terminate()
        try:
            daemon.wait(timeout=HANG_S)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait()


def _ticks(instance: dg.DagsterInstance, name: str) -> list[Any]:
    """The instigator's ticks, oldest first."""
    for state in instance.all_instigator_state():
        if state.instigator_name == name:
            ticks = instance.get_ticks(state.instigator_origin_id, state.selector_id)
            return sorted(ticks, key=lambda t: t.timestamp)
    return []


def _sent(tick: Any) -> int:
    match = SENT.match(tick.skip_reason or "")
    return int(match.group(1)) if match else 0


def _settled(instance: dg.DagsterInstance) -> bool:
    """A run or a schedule's tick failed (or skipped); or every run is over, each ingest and
    telemetry run has its marts run, and the notifier has ticked after the last run and after
    every tick that sent something, with nothing left to send (a repeat would be sent then)."""
    runs = instance.get_runs()
    if any(r.status in FAILED for r in runs):
        return True
    if any(t.status in TICK_FAILED for name in SCHEDULES for t in _ticks(instance, name)):
        return True
    by_job = Counter(r.job_name for r in runs)
    if not runs or any(r.status not in DONE for r in runs):
        return False
    if not by_job["ingest"] or by_job["marts"] < by_job["ingest"] + by_job["telemetry"]:
        return False
    last_end = max(instance.get_run_record_by_id(r.run_id).end_time or 0 for r in runs)
    ticks = _ticks(instance, "alert_notifier")
    sending = [t.timestamp for t in ticks if _sent(t)]
    return bool(sending) and any(
        t.skip_reason == NOTHING_LEFT and t.timestamp > max(last_end, *sending) for t in ticks
    )


def _story(instance: dg.DagsterInstance) -> str:
    """What the daemon did: its runs and the notifier's ticks, for a failure's message."""
    lines = [f"run {r.job_name} {r.status.value} {r.tags}" for r in instance.get_runs()]
    for name in SCHEDULES:
        lines += [f"{name}: {t.status.value} {t.skip_reason or ''}" for t in _ticks(instance, name)]
    lines += [f"alert_notifier: {t.skip_reason}" for t in _ticks(instance, "alert_notifier")]
    return "\n".join(lines)


def _wait(instance: dg.DagsterInstance, daemon: subprocess.Popen[bytes]) -> None:
    """Until the daemon has settled (or exited): no deadline, as the daemon's sensors tick at
    their own intervals however loaded the machine; a hang is pytest-timeout's to end."""
    try:
        while not _settled(instance):
            if daemon.poll() is not None:
                pytest.fail(f"dagster-daemon exited ({daemon.returncode})\n{_story(instance)}")
            time.sleep(2)
    except BaseException:
        sys.stderr.write(_story(instance) + "\n")
        raise


def _log_excerpt(log: Path, lines: int = 150) -> str:
    """The daemon's own lines and the runs' messages, without the step-by-step debug events."""
    noise = (" - DEBUG - ", "BetaWarning", "return fn(*args, **kwargs)")
    kept = [
        line
        for line in log.read_text(errors="replace").splitlines()
        if line.strip() and not any(n in line for n in noise)
    ]
    return "\n".join(kept[-lines:]) + "\n"


def _rows(db: Path, table: str) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        columns = con.execute(f"DESCRIBE {table}").fetchall()
        kept = ", ".join(
            f'round("{name}", {FLOAT_DIGITS})' if kind in FLOATS else f'"{name}"'
            for name, kind, *_ in columns
            if name not in NOT_COMPARED
        )
        return con.execute(f"SELECT {kept} FROM {table} ORDER BY ALL").fetchall()
    finally:
        con.close()


def _query(db: Path, sql: str) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _checksum(db: Path, table: str) -> str:
    return hashlib.sha256("\n".join(map(repr, _rows(db, table))).encode()).hexdigest()


def _alert_id(body: dict[str, Any]) -> str:
    """The alert a Slack-shaped body carries (its context block ends with the id in backticks)."""
    context = body["blocks"][-1]["elements"][0]["text"]
    match = SLACK_ALERT_ID.search(context)
    assert match, context
    return match.group(1)


def test_the_daemon_runs_the_schedules_and_delivers_each_alert_once(tmp_path: Path) -> None:
    today = _day_with_room()
    start = today - timedelta(days=DAYS)  # the tick's window: the DAYS before its day
    config = _simulate(tmp_path / "daemon", start)
    shutil.copytree(tmp_path / "daemon", tmp_path / "reference")  # the same inputs
    reference = tmp_path / "reference" / "flopledger.yaml"
    # The tick: this minute, already begun, so it is past when the daemon evaluates it.
    tick = datetime.now(UTC).replace(second=0, microsecond=0)
    assert tick.date() == today, "midnight passed while simulating"
    schedules = _once_at(tick)
    config.write_text(config.read_text() + schedules)
    home = prepare_dagster_home(load_config(config))  # pipelines/dagster.yaml copied in
    assert home == tmp_path / "daemon" / "dagster_home"
    with dg.DagsterInstance.from_config(str(home)) as instance:
        _started_before(instance, tick, schedules.split('"')[1])

    with Receiver(fail=0) as hook:
        daemon = _daemon(home, config, hook, tmp_path / "daemon.log")
        try:
            # The daemon loads meanwhile: build the reference beside it.
            assert main(["run", "--config", str(reference)]) == 0
            with dg.DagsterInstance.from_config(str(home)) as instance:
                _wait(instance, daemon)
                runs = instance.get_runs()
                ticks = {name: _ticks(instance, name) for name in SCHEDULES}
        except BaseException:
            sys.stderr.write(_log_excerpt(tmp_path / "daemon.log"))
            raise
        finally:
            _stop(daemon)
        received = list(hook.received)

    # Each schedule ticked once, at the tick, and launched its run.
    for name in SCHEDULES:
        assert [(t.status, t.timestamp) for t in ticks[name]] == [
            (TickStatus.SUCCESS, tick.timestamp())
        ], (name, [(t.status, t.skip_reason, t.error) for t in ticks[name]])
    # Every run the daemon launched succeeded: the scheduled ingest, the telemetry, and the
    # marts run the sensor asked for after each.
    assert {r.status for r in runs} == {dg.DagsterRunStatus.SUCCESS}, [
        (r.job_name, r.status) for r in runs
    ]
    by_job = Counter(r.job_name for r in runs)
    assert by_job == {"ingest": 1, "telemetry": 1, "marts": 2}
    ingest = next(r for r in runs if r.job_name == "ingest")
    assert ingest.tags["dagster/schedule_name"] == "billing_daily"
    assert ingest.tags["dagster/asset_partition_range_start"] == start.isoformat()
    last_day = start + timedelta(days=DAYS - 1)
    assert ingest.tags["dagster/asset_partition_range_end"] == last_day.isoformat()
    assert ingest.tags["flopledger/now"] == tick.replace(tzinfo=None).isoformat()
    for run in runs:
        if run.job_name == "marts":
            assert run.tags["dagster/sensor_name"] == "marts_after_ingest"

    # The books are those of `flopledger run` over the same inputs.
    live = tmp_path / "daemon" / "warehouse.duckdb"
    ref = tmp_path / "reference" / "warehouse.duckdb"
    assert len(_rows(live, "cost_per_run")) > 0
    for table in MONEY_MARTS:
        assert _checksum(live, table) == _checksum(ref, table), table
    total = "SELECT sum(effective_cost) FROM spend_daily"
    assert _query(live, total) == _query(ref, total)
    alerts = _query(live, "SELECT alert_id, channels, notified_at FROM alerts")
    raised = "SELECT alert_id, severity, title, message FROM alerts ORDER BY ALL"
    assert _query(live, raised) == _query(ref, raised)

    # Each alert raised once and posted once to its one channel, no more.
    assert alerts, "the simulated budgets trip: there should be alerts"
    assert len({alert_id for alert_id, _, _ in alerts}) == len(alerts)
    assert all(channels == ["oncall"] for _, channels, _ in alerts)
    # The notifier recorded each delivery in its own store beside Dagster's, not in the
    # warehouse (a marts run after the deliveries copies them into the alerts table).
    store = DeliveryStore.of(load_config(config))
    assert store.path == home / "alert_deliveries.sqlite"
    recorded = store.states(alert_id for alert_id, _, _ in alerts)
    assert {a: bool(c["oncall"]["delivered_at"]) for a, c in recorded.items()} == {
        alert_id: True for alert_id, _, _ in alerts
    }
    assert {path for path, _ in received} == {HOOK_PATH}
    posted = Counter(_alert_id(body) for _, body in received)
    assert posted == Counter(alert_id for alert_id, _, _ in alerts)

    # The readers' snapshot was published by the marts run.
    snapshot = tmp_path / "daemon" / "warehouse.snapshot.duckdb"
    assert snapshot.is_file()
    assert _checksum(snapshot, "cost_per_run") == _checksum(live, "cost_per_run")


HOLD_WRITER = """
import sys, duckdb
con = duckdb.connect(sys.argv[1])
print("holding", flush=True)
sys.stdin.read()  # until the test closes our stdin
"""
NEVER = '"0 0 1 1 *"'  # the schedules' crons: not in this test's lifetime


def test_alerts_go_out_while_a_writer_runs_and_another_waits(tmp_path: Path) -> None:
    """Under dagster-daemon, the queue full: a writer run under way (it holds the live
    warehouse file, as a run does, in another process) and a real marts run queued behind it
    (the writer tag's limit is 1). The notifier delivers every alert the published snapshot
    holds within its first two ticks, and neither run has moved."""
    config = _simulate(tmp_path / "fleet", datetime.now(UTC).date() - timedelta(days=DAYS))
    config.write_text(config.read_text() + f"schedules: {{billing: {NEVER}, telemetry: {NEVER}}}\n")
    assert main(["run", "--config", str(config)]) == 0  # raises the alerts, publishes them
    live = tmp_path / "fleet" / "warehouse.duckdb"
    raised = {alert_id for (alert_id,) in _query(live, "SELECT alert_id FROM alerts")}
    assert raised, "the simulated budgets trip: there should be alerts"
    home = prepare_dagster_home(load_config(config))
    env = {**os.environ, "DAGSTER_HOME": str(home), "FLOPLEDGER_CONFIG": str(config)}
    with dg.DagsterInstance.from_config(str(home)) as instance:
        running = DagsterRun(job_name="marts", status=dg.DagsterRunStatus.STARTED, tags=WRITER_TAGS)
        instance.add_run(running)
    launched = subprocess.run(
        [str(Path(sys.executable).parent / "dagster"), "job", "launch", "-w", "workspace.yaml"]
        + ["-j", "marts"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert launched.returncode == 0, launched.stderr[-2000:]
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_WRITER, str(live)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert holder.stdout is not None and holder.stdout.readline() == b"holding\n"
    with Receiver(fail=0) as hook:
        daemon = _daemon(home, config, hook, tmp_path / "daemon.log")
        try:
            with dg.DagsterInstance.from_config(str(home)) as instance:
                # Until delivered, and the ticks that posted have ended (their skip reason, what
                # they sent, is written after the posts); a hang is pytest-timeout's to end.
                while {_alert_id(body) for _, body in hook.received} != raised or any(
                    t.status == TickStatus.STARTED for t in _ticks(instance, "alert_notifier")
                ):
                    if daemon.poll() is not None:
                        pytest.fail(f"dagster-daemon exited ({daemon.returncode})")
                    time.sleep(1)
                statuses = {  # the runs `flopledger run` made are over: not the queue's
                    r.run_id: r.status for r in instance.get_runs() if CLI_TAG not in r.tags
                }
                ticks = _ticks(instance, "alert_notifier")
        except BaseException:
            sys.stderr.write(_log_excerpt(tmp_path / "daemon.log"))
            raise
        finally:
            _stop(daemon)
            assert holder.stdin is not None
            holder.stdin.close()
            holder.wait(timeout=HANG_S)
        received = list(hook.received)
    # Each alert once, sent by the notifier's first two ticks, the queue as it was.
    assert Counter(_alert_id(body) for _, body in received) == Counter(raised)
    assert sum(_sent(t) for t in ticks[:2]) == len(raised), [t.skip_reason for t in ticks]
    assert statuses.pop(running.run_id) == dg.DagsterRunStatus.STARTED
    assert list(statuses.values()) == [dg.DagsterRunStatus.QUEUED]  # the launched marts run
