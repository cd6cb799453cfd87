"""The asset jobs: names shared by the definitions, the schedules, the sensors and the CLI.

Every job writes the one DuckDB file, which takes one writer at a time. So each runs its
steps in one process (the in-process executor: no two steps of a run fight for the lock),
and each carries WAREHOUSE_TAG, which `dagster.yaml` limits to one run at a time (the run
queue holds the next until the warehouse is free)."""

from typing import Any

import dagster as dg

from flopledger.settings.log_format import log_format

INGEST_JOB = "ingest"  # every raw (daily-partitioned) asset
TELEMETRY_JOB = "telemetry"  # GPU and TPU samples only: the hourly tick
MARTS_JOB = (
    "marts"  # every intermediate table and mart, their checks, budgets, alerts, the snapshot
)
WAREHOUSE_TAG = "flopledger/warehouse"
WRITER_TAGS = {WAREHOUSE_TAG: "writer"}  # on every job; dagster.yaml limits it to one run
TELEMETRY_ASSETS = ("gpu_samples", "tpu_samples")


# With FLOPLEDGER_LOG_FORMAT=json where the code location loads (the daemon's, the
# webserver's), a run started without its own loggers (a schedule's, a sensor's, a backfill's,
# the UI's) logs JSON lines (pipelines/progress.py's json_logger), not Dagster's coloured text.
JSON_RUN_CONFIG: dict[str, Any] = {"loggers": {"json": {}}}


def _writer(name: str, selection: dg.AssetSelection) -> Any:  # an unresolved asset job
    return dg.define_asset_job(
        name,
        selection=selection,
        executor_def=dg.in_process_executor,
        tags=WRITER_TAGS,
        config=JSON_RUN_CONFIG if log_format() == "json" else None,
    )


def asset_jobs() -> list[Any]:
    return [
        _writer(INGEST_JOB, dg.AssetSelection.groups("raw")),
        _writer(TELEMETRY_JOB, dg.AssetSelection.assets(*TELEMETRY_ASSETS)),
        _writer(MARTS_JOB, dg.AssetSelection.groups("intermediate", "marts")),
    ]
