"""Run the whole pipeline in process: one run for the daily partitions, one for the marts."""

from __future__ import annotations

import logging
import sys
import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import dagster as dg

from pipelines.build import build_definitions
from pipelines.config import Config
from pipelines.days import input_days
from pipelines.jobs import INGEST_JOB, MARTS_JOB
from pipelines.partitions import WINDOW_ONLY_TAG
from pipelines.report import RunReport, collect_events

# One concise line per step instead of Dagster's console log; the report comes at the end.
QUIET = {"loggers": {"progress": {}}}


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _quiet_dagster() -> None:
    for name in ("dagster", "dagster._core", "dagster.builtin"):
        logging.getLogger(name).setLevel(logging.ERROR)


@dataclass
class _Window:
    start: date
    end: date
    days: list[date] = field(default_factory=list)


def _window(config: Config, start: date | None, end: date | None) -> _Window | None:
    found = sorted(input_days(config))
    if start or end:
        found = [d for d in found if (start is None or d >= start) and (end is None or d <= end)]
        lo, hi = start or (found[0] if found else None), end or (found[-1] if found else None)
    else:
        lo, hi = (found[0], found[-1]) if found else (None, None)
    if lo is None or hi is None:
        return None
    return _Window(lo, hi, found)


def run_pipeline(
    config: Config, config_path: str | Path, start: date | None = None, end: date | None = None
) -> RunReport:
    """Ingest the days found in the inputs (or [start, end]) in one run, then rebuild the marts."""
    _quiet_dagster()
    report = RunReport(config=config)
    window = _window(config, start, end)
    defs = build_definitions(str(Path(config_path).resolve()), window.start if window else None,
                             window.end if window else None)
    instance = dg.DagsterInstance.ephemeral()
    if window is None:
        _progress("flopledger: no input rows found; rebuilding the marts only")
    else:
        days = (window.end - window.start).days + 1
        _progress(f"[1/2] ingest: {days} day(s), {window.start} .. {window.end}")
        t0 = time.monotonic()
        result = defs.resolve_job_def(INGEST_JOB).execute_in_process(
            instance=instance,
            run_config=QUIET,
            raise_on_error=False,
            tags={
                "dagster/asset_partition_range_start": window.start.isoformat(),
                "dagster/asset_partition_range_end": window.end.isoformat(),
                **({WINDOW_ONLY_TAG: "true"} if start or end else {}),
            },
        )
        collect_events(report, result)
        _progress(f"      done in {time.monotonic() - t0:.1f} s")
    _progress("[2/2] marts and checks")
    t0 = time.monotonic()
    result = defs.resolve_job_def(MARTS_JOB).execute_in_process(
        instance=instance, run_config=QUIET, raise_on_error=False
    )
    collect_events(report, result)
    _progress(f"      done in {time.monotonic() - t0:.1f} s")
    if report.succeeded and not report.failed_books_checks:
        report.snapshot = report.warehouse().publish_snapshot()
    return report
