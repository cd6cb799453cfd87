"""Run the whole pipeline in process: one run for the daily partitions, one for the marts."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import dagster as dg

from flopledger.clients.network import use_deadlines
from flopledger.ingest.outcome import CheckResult, RunOutcome
from flopledger.ingest.registry import input_days, list_inputs
from flopledger.pipelines.asset_jobs import INGEST_JOB, MARTS_JOB, TELEMETRY_ASSETS, TELEMETRY_JOB
from flopledger.pipelines.definitions import build_definitions, start_day
from flopledger.pipelines.instance import flopledger_instance
from flopledger.pipelines.marts import closed_months as closed_months_asset
from flopledger.pipelines.marts.snapshot import SNAPSHOT_ASSET
from flopledger.pipelines.run_tags import CAUSE_TAG, CLI_TAG, FULL_TAG, NOW_TAG, WINDOW_ONLY_TAG
from flopledger.pipelines.schedules import telemetry_marts
from flopledger.reports import closed_months
from flopledger.settings import Config
from flopledger.settings.history_floor import lower_floor
from flopledger.settings.log_format import say
from flopledger.warehouse import open_warehouse

# One concise line per step instead of Dagster's console log; the report comes at the end.
QUIET: dict[str, Any] = {"loggers": {"progress": {}}}


def _progress(message: str) -> None:
    say(message)  # text, or a JSON line (settings/log_format.py)


def _quiet_dagster() -> None:
    for name in ("dagster", "dagster._core", "dagster.builtin"):
        logging.getLogger(name).setLevel(logging.ERROR)


@dataclass
class _Window:
    start: date
    end: date


def _window(
    config: Config,
    start: date | None,
    end: date | None,
    run_id: str | None = None,
    tables: Collection[str] | None = None,
) -> _Window | None:
    """The run's days: as given, else those its sources' inputs hold (`tables`: the sources
    writing them, else all)."""
    if start and end:  # given whole: listed for the steps, no day to find
        if run_id:
            list_inputs(config, run_id, tables)
        return _Window(start, end)
    found = sorted(input_days(config, run_id, tables))
    if start or end:
        found = [d for d in found if (start is None or d >= start) and (end is None or d <= end)]
        lo, hi = start or (found[0] if found else None), end or (found[-1] if found else None)
    else:
        lo, hi = (found[0], found[-1]) if found else (None, None)
    if lo is None or hi is None:
        return None
    return _Window(lo, hi)


# How a failed blocking check fails its step: reported as the check, not as a step failure.
BLOCKING_CHECK_FAILED = "DagsterAssetCheckFailedError"


def _metadata_value(value: Any) -> Any:
    return getattr(value, "value", value)


def collect_events(report: RunOutcome, result: dg.ExecuteInProcessResult) -> None:
    """Fold one in-process run's materialisations, failures and check results into the report."""
    blocked_before = len(report.blocked)
    blocking_failed: list[str] = []  # the steps a failed blocking check stopped
    failed: list[str] = []  # the failed blocking checks, as "check on asset"
    started = {
        e.step_key for e in result.all_events if e.event_type == dg.DagsterEventType.STEP_START
    }
    for event in result.all_events:
        if event.event_type == dg.DagsterEventType.ASSET_MATERIALIZATION:
            mat = event.step_materialization_data.materialization
            meta = {k: _metadata_value(v) for k, v in mat.metadata.items()}
            report.materialized[mat.asset_key.to_user_string()] = meta
        elif event.event_type == dg.DagsterEventType.STEP_FAILURE:
            error = event.step_failure_data.error
            if error is not None and error.cls_name == BLOCKING_CHECK_FAILED:
                # The check's own result says what failed (below); the snapshot is withheld,
                # and the steps downstream do not run (their marts keep the previous run's rows).
                blocking_failed.append(event.step_key or "a step")
                continue
            report.failures.append(f"{event.step_key}: {_root_cause(error)}")
        elif event.event_type == dg.DagsterEventType.ASSET_CHECK_EVALUATION:
            data = event.asset_check_evaluation_data
            report.checks.append(
                CheckResult(
                    asset=data.asset_key.to_user_string(),
                    name=data.check_name,
                    passed=data.passed,
                    severity=data.severity.value,
                    description=data.description or "",
                )
            )
            if data.blocking and not data.passed and data.severity == dg.AssetCheckSeverity.ERROR:
                failed.append(f"{data.check_name} on {data.asset_key.to_user_string()}")

    if blocking_failed:
        report.blocked += failed or blocking_failed
    if len(report.blocked) > blocked_before:
        # Steps downstream of a failed blocking check are abandoned (Dagster logs, no event).
        planned = [n.name for n in result.job_def.nodes_in_topological_order]
        report.skipped += [name for name in planned if name not in started]


def _root_cause(error: Any) -> str:
    """The innermost error's first line: what went wrong, not Dagster's wrapper."""
    while error is not None and error.cause is not None:
        error = error.cause
    if error is None:
        return "failed"
    return error.message.strip().splitlines()[0]


def _ingest(
    defs: dg.Definitions,
    instance: dg.DagsterInstance,
    report: RunOutcome,
    window: _Window,
    window_only: bool,
    run_id: str,
    job: str = INGEST_JOB,
) -> None:
    """One run of the ingest job (or the telemetry job) over the window's partition range."""
    days = (window.end - window.start).days + 1
    _progress(f"[1/2] {job}: {days} day(s), {window.start} .. {window.end}")
    t0 = time.monotonic()
    result = defs.resolve_job_def(job).execute_in_process(
        instance=instance,
        run_config=QUIET,
        raise_on_error=False,
        run_id=run_id,
        tags={
            CLI_TAG: "true",
            "dagster/asset_partition_range_start": window.start.isoformat(),
            "dagster/asset_partition_range_end": window.end.isoformat(),
            **({WINDOW_ONLY_TAG: "true"} if window_only else {}),
        },
    )
    collect_events(report, result)
    _progress(f"      done in {time.monotonic() - t0:.1f} s")


def _offer_older_days(config: Config, window: _Window | None) -> None:
    """A run over days before those Dagster's tools offer moves their first day back to its
    own (settings/history_floor.py): the UI can then backfill them without a config edit."""
    if window is None or config.dagster_home is None:
        return
    if window.start < start_day(config, datetime.now(UTC).date()):
        lower_floor(config.dagster_home, window.start)
        _progress(f"      Dagster's partitions now start at {window.start} (older days ingested)")


def run_pipeline(
    config: Config,
    config_path: str | Path,
    start: date | None = None,
    end: date | None = None,
    full: bool = False,
    telemetry: bool = False,
    now: datetime | None = None,
    cause: str = closed_months.LATE_ROWS,
    ingest: bool = True,
    marts: bool = True,
) -> RunOutcome:
    """Ingest the days found in the inputs (or [start, end]) in one run, then rebuild the marts:
    what the ingest changed (everything with `full`). With `telemetry`, the hourly tick's run:
    the GPU and TPU samples only, then only the marts they feed (schedules.telemetry_marts). A
    closed month (at `now`, the resource's clock unless given) whose figures the run changed is
    said in the outcome and recorded with `cause` by the marts job itself
    (pipelines/marts/closed_months.py). Without `ingest` only the marts are built, over
    [start, end]: what `flopledger restate` runs. Without `marts` (a telemetry run) only the
    samples are loaded: what the telemetry_hourly ticks between marts ticks run
    (schedules.marts_tick)."""
    _quiet_dagster()
    use_deadlines(config.network.deadline_s, config.network.webhook_deadline_s)
    # One clear error before any step runs, rather than every step failing on the lock.
    warehouse = open_warehouse(config.warehouse)
    warehouse.ensure_schema()
    # The marts' clock (which months are closed; else the resource's), and the cause they
    # record a closed month's change with (pipelines/marts/closed_months.py).
    marts_tags = {CAUSE_TAG: cause, **({NOW_TAG: now.isoformat()} if now else {})}
    with warehouse.held():  # the run works from start to end: one opening of the warehouse
        report = _run(config, config_path, start, end, full, telemetry, ingest, marts_tags, marts)
    # The marts job watched the closed months itself (pipelines/marts/closed_months.py).
    said = report.materialized.get(closed_months_asset.CHANGES, {}).get("closed_months")
    report.closed_months = str(said).splitlines() if said else []
    return report


def _marts_tags(
    defs: dg.Definitions, window: _Window | None, full: bool, extra: dict[str, str]
) -> dict[str, str]:
    """The marts run's partitions: the ingest's window (else the newest day), and its tags."""
    if window is not None:
        first, last = window.start.isoformat(), window.end.isoformat()
    else:
        keys = defs.resolve_job_def(MARTS_JOB).partitions_def
        last = first = keys.get_last_partition_key() if keys is not None else None  # type: ignore[assignment]
    tags = {CLI_TAG: "true", **extra, **({FULL_TAG: "true"} if full else {})}
    if first is None or last is None:
        return tags
    return {
        **tags,
        "dagster/asset_partition_range_start": first,
        "dagster/asset_partition_range_end": last,
    }


def _run(
    config: Config,
    config_path: str | Path,
    start: date | None,
    end: date | None,
    full: bool,
    telemetry: bool = False,
    ingest: bool = True,
    marts_tags: dict[str, str] | None = None,
    marts: bool = True,
) -> RunOutcome:
    """run_pipeline's work, the warehouse held open."""
    report = RunOutcome(config=config)
    # The ingest run's id, chosen now: finding the days lists the inputs under it, and the
    # run reuses that listing (and what was downloaded) instead of listing again.
    run_id = str(uuid.uuid4())
    if ingest:
        _progress(
            f"[0/2] inputs: listing them for the given window, {start} .. {end}"
            if start and end
            else "[0/2] inputs: listing them (gs:// objects fetched once) and finding their days"
        )
        t0 = time.monotonic()
        window = _window(config, start, end, run_id, TELEMETRY_ASSETS if telemetry else None)
        _progress(f"      done in {time.monotonic() - t0:.1f} s")
    else:
        window = _Window(start, end) if start and end else None
    _offer_older_days(config, window)
    defs = build_definitions(
        str(Path(config_path).resolve()),
        window.start if window else None,
        window.end if window else None,
    )
    with flopledger_instance(config) as instance:  # the UI shows these runs too
        if not ingest:
            _progress(f"[1/2] ingest: none (the marts only, {start} .. {end})")
        elif window is not None:
            job = TELEMETRY_JOB if telemetry else INGEST_JOB
            _ingest(defs, instance, report, window, bool(start or end), run_id, job)
        else:
            _progress("flopledger: no input rows found; rebuilding the marts only")
        if not marts:
            every = config.schedules.telemetry_marts_every_hours
            report.marts_left = (
                "marts not rebuilt: the samples only (--samples-only), as the telemetry ticks "
                f"between marts ticks run; the marts they feed are rebuilt after the ticks of "
                f"every {every} hours (schedules.telemetry_marts_every_hours) and by the daily run"
            )
            _progress("[2/2] marts: none (--samples-only)")
            return report
        _progress("[2/2] marts and checks")
        t0 = time.monotonic()
        result = defs.resolve_job_def(MARTS_JOB).execute_in_process(
            instance=instance,
            run_config=QUIET,
            raise_on_error=False,
            tags=_marts_tags(defs, window, full, marts_tags or {}),
            asset_selection=telemetry_marts(instance) if telemetry else None,
        )
        collect_events(report, result)
        _progress(f"      done in {time.monotonic() - t0:.1f} s")
    # The marts job publishes the snapshot itself (an asset the blocking books checks gate).
    published = report.materialized.get(SNAPSHOT_ASSET, {}).get("path")
    report.snapshot = str(published) if published else None
    return report
