"""What the Dagster instance says of a deployment's health, for `flopledger doctor`: the last
run of each job and how it ended, the last successful publish of the marts, and whether the
daemon (which runs the schedules and sensors) is alive. Nothing here is unhealthy for a
deployment run only with `flopledger run` (no daemon, no schedules): those are notes.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg

from flopledger.pipelines.asset_jobs import MARTS_JOB
from flopledger.pipelines.instance import INSTANCE_TEMPLATE, flopledger_instance
from flopledger.settings import Config

# A daemon heartbeat older than this is a daemon that stopped (Dagster's own is 30 s apart).
HEARTBEAT_STALE_S = 300
RECENT_RUNS = 500  # runs looked at for each job's last: a few days of hourly ticks


def _when(epoch_s: float | None) -> str:
    if epoch_s is None:
        return "?"
    return datetime.fromtimestamp(epoch_s, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def instance_checks(config: Config, now_s: float) -> Iterator[tuple[str, str, str]]:
    """(check, ok | note | fail, one line) for the instance's dagster.yaml, each job's last
    run and the daemon."""
    yield instance_file_check(config)
    instance = flopledger_instance(config)
    try:
        records = instance.get_run_records(limit=RECENT_RUNS)
        latest: dict[str, dg.DagsterRun] = {}
        ended: dict[str, float | None] = {}
        succeeded: dict[str, float | None] = {}
        for record in records:  # newest first
            name = record.dagster_run.job_name
            latest.setdefault(name, record.dagster_run)
            ended.setdefault(name, record.end_time)
            if record.dagster_run.status == dg.DagsterRunStatus.SUCCESS:
                succeeded.setdefault(name, record.end_time)
        if not latest:
            yield "runs", "note", "no run recorded yet in dagster_home (run `flopledger run`)"
        for name in sorted(latest):
            run = latest[name]
            status = run.status.value.lower()
            if run.status == dg.DagsterRunStatus.FAILURE:
                last_ok = succeeded.get(name)
                since = f"last success {_when(last_ok)}" if name in succeeded else "never succeeded"
                yield (
                    f"job {name}",
                    "fail",
                    f"last run {run.run_id} failed at {_when(ended[name])} ({since}): "
                    f"`flopledger ui`, Runs",
                )
            else:
                yield f"job {name}", "ok", f"last run {status} at {_when(ended[name])}"
        heartbeats = instance.get_daemon_heartbeats()
        if not heartbeats:
            yield (
                "daemon",
                "note",
                "no dagster-daemon has run: schedules and sensors are off (fine for `flopledger run`)",
            )
        else:
            newest = max(h.timestamp for h in heartbeats.values())
            age = now_s - newest
            if age > HEARTBEAT_STALE_S:
                yield (
                    "daemon",
                    "note",
                    f"last daemon heartbeat {_when(newest)} ({age / 60:.0f} min ago): schedules are not running",
                )
            else:
                yield "daemon", "ok", f"dagster-daemon alive (heartbeat {age:.0f} s ago)"
    finally:
        instance.dispose()


def instance_file_state(config: Config) -> tuple[Path, str]:
    """dagster_home's dagster.yaml and whether it is `absent`, `same` as this version's or
    `differs` (an upgrade does not replace a copy that exists: one edited on purpose is told
    apart only by its owner)."""
    deployed = Path(str(config.dagster_home)) / "dagster.yaml"
    if not deployed.exists():
        return deployed, "absent"
    return (
        deployed,
        "same" if deployed.read_bytes() == INSTANCE_TEMPLATE.read_bytes() else "differs",
    )


def instance_file_check(config: Config) -> tuple[str, str, str]:
    """Whether dagster_home's dagster.yaml is this version's, as a doctor's line."""
    deployed, state = instance_file_state(config)
    if state == "absent":
        return "dagster.yaml", "note", f"{deployed} not there yet: the first run copies it"
    if state == "same":
        return "dagster.yaml", "ok", f"{deployed} is this version's"
    return (
        "dagster.yaml",
        "note",
        (
            f"{deployed} differs from this version's ({INSTANCE_TEMPLATE}): unless it was edited "
            "on purpose, copy that one over it and restart the daemon (CHANGELOG.md says what changed)"
        ),
    )


def last_publish_s(config: Config) -> float | None:
    """When the marts job last succeeded (it publishes the snapshot): epoch seconds, or None."""
    instance = flopledger_instance(config)
    try:
        records = instance.get_run_records(
            filters=dg.RunsFilter(job_name=MARTS_JOB, statuses=[dg.DagsterRunStatus.SUCCESS]),
            limit=1,
        )
        return records[0].end_time if records else None
    finally:
        instance.dispose()
