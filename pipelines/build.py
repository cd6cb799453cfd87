"""Every source's definitions merged into one `Definitions`: the only place that combines them."""

from __future__ import annotations

import os
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import dagster as dg

from pipelines.jobs import INGEST_JOB, MARTS_JOB
from pipelines.marts import assets as mart_assets
from pipelines.marts.checks import MART_CHECKS
from pipelines.partitions import daily_partitions
from pipelines.progress import progress_logger
from pipelines.resources import Flopledger
from pipelines.sources import budgets, cloud_monitoring, gcp_billing, jobs, nvml_spool, probes

# Each source package has build(partitions) -> dg.Definitions. Add a source here.
SOURCES = [gcp_billing, jobs, nvml_spool, cloud_monitoring, budgets, probes]

REPO = Path(__file__).resolve().parent.parent


def default_config_path() -> str:
    for candidate in (os.environ.get("FLOPLEDGER_CONFIG"), "flopledger.yaml"):
        if candidate and Path(candidate).is_file():
            return str(Path(candidate).resolve())
    return str(REPO / "examples" / "flopledger.yaml")


def _start_day(config_path: str) -> date:
    """history_start from the config, else the warehouse's first day, else 90 days ago."""
    from pipelines.config import ConfigError, load_config

    try:
        config = load_config(config_path)
    except ConfigError:
        config = None
    if config is not None and config.history_start is not None:
        return config.history_start
    if config is not None and Path(config.warehouse.path).is_file():
        try:
            from pipelines.warehouse.duckdb import connect

            con = connect(config.warehouse.path, read_only=True)
            first = con.execute("SELECT min(usage_day) FROM billing_line_items").fetchone()
            con.close()
            if first and first[0]:
                return first[0]
        except Exception:  # noqa: BLE001 - a busy or older warehouse falls back to the default
            pass
    return datetime.now(UTC).date() - timedelta(days=90)


def _source_definitions(partitions: dg.PartitionsDefinition) -> list[dg.Definitions]:
    """One Definitions per source (assets, checks, schedules, sensors), from its package."""
    return [module.build(partitions) for module in SOURCES]


def build_definitions(
    config_path: str, start: date | None = None, end: date | None = None
) -> dg.Definitions:
    """All assets, checks, jobs and schedules, partitioned from `start` to `end` (today if None)."""
    partitions = daily_partitions(start or _start_day(config_path), end)
    sources = dg.Definitions.merge(*_source_definitions(partitions))
    raw_keys = {
        key.to_user_string()
        for a in sources.assets or []
        if isinstance(a, dg.AssetsDefinition)
        for key in a.keys
    }
    marts = dg.Definitions(
        assets=mart_assets.build_assets(raw_keys),
        asset_checks=MART_CHECKS,
        jobs=[
            dg.define_asset_job(INGEST_JOB, selection=dg.AssetSelection.groups("raw")),
            dg.define_asset_job(MARTS_JOB, selection=dg.AssetSelection.groups("marts")),
        ],
        resources={"flopledger": Flopledger(config_path=config_path)},
        loggers={"progress": progress_logger},
    )
    return dg.Definitions.merge(sources, marts)
