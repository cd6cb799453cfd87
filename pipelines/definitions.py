"""The single Dagster entry point: the sources', marts', alerts' and reports' definitions merged
into one `Definitions`.

`workspace.yaml` loads `defs`, a lazy `@dg.definitions` function: importing this module
builds nothing and touches no file. The config file is `$FLOPLEDGER_CONFIG`, else
`./flopledger.yaml`. With neither, the definitions still load (default schedules) and a run
says the file is missing: no example config is shipped to fall back on, since a run from one
inside the installed package would write its warehouse into site-packages.
"""

from __future__ import annotations

import os
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import dagster as dg

from flopledger.pipelines import alerts, checks, month_report, schedules, sources
from flopledger.pipelines.asset_jobs import asset_jobs
from flopledger.pipelines.marts import assets as mart_assets
from flopledger.pipelines.partitions import daily_partitions
from flopledger.pipelines.progress import json_logger, progress_logger
from flopledger.pipelines.resources import Flopledger
from flopledger.settings import Config, ConfigError, SchedulesConfig, load_config
from flopledger.settings.history_floor import read_floor

# Partitions start here when the config names no `history_start`.
DEFAULT_HISTORY_DAYS = 90


def default_config_path() -> str:
    """$FLOPLEDGER_CONFIG when set, else ./flopledger.yaml: absolute, so a run names the file."""
    return str(Path(os.environ.get("FLOPLEDGER_CONFIG") or "flopledger.yaml").resolve())


def _config(config_path: str) -> Config | None:
    """The config, quietly; None when it is broken (each asset then says why when it runs)."""
    try:
        return load_config(config_path, warn=False)
    except ConfigError:
        return None


def start_day(config: Config | None, today: date) -> date:
    """`history_start` from the config, else DEFAULT_HISTORY_DAYS before `today`; earlier when a
    run has ingested older days (settings/history_floor.py).

    Read from the config and one small file: loading the workspace never opens the warehouse."""
    history_start = config.history_start if config is not None else None
    start = history_start or today - timedelta(days=DEFAULT_HISTORY_DAYS)
    floor = read_floor(config.dagster_home) if config is not None else None
    return min(start, floor) if floor is not None else start


def build_definitions(
    config_path: str, start: date | None = None, end: date | None = None
) -> dg.Definitions:
    """All assets, checks, jobs and schedules, partitioned from `start` to `end` (today if None)."""
    today = datetime.now(UTC).date()
    config = _config(config_path)
    partitions = daily_partitions(start or start_day(config, today), end)
    raw = sources.build(partitions)  # one asset per source of ingest/registry.py
    raw_keys = {
        key.to_user_string()
        for a in raw.assets or []
        if isinstance(a, dg.AssetsDefinition)
        for key in a.keys
    }
    jobs = asset_jobs()
    rest = dg.Definitions(
        assets=mart_assets.build_assets(raw_keys, partitions),
        asset_checks=checks.build_checks(),
        jobs=jobs,
        schedules=schedules.build_schedules(
            partitions, config.schedules if config is not None else SchedulesConfig()
        ),
        sensors=schedules.build_sensors(
            {job.name: job for job in jobs},
            (
                config.schedules if config is not None else SchedulesConfig()
            ).telemetry_marts_every_hours,
        ),
        resources={"flopledger": Flopledger(config_path=config_path)},
        loggers={"progress": progress_logger, "json": json_logger},
    )
    crons = config.schedules if config is not None else SchedulesConfig()
    return dg.Definitions.merge(raw, alerts.build(), month_report.build(crons), rest)


@dg.definitions
def defs() -> dg.Definitions:
    return build_definitions(default_config_path())
