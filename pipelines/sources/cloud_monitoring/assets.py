"""TPU time series into `tpu_samples`, one partition per UTC day."""

from collections import Counter
from datetime import datetime, time, timedelta

import dagster as dg

from flopledger.collectors.cloud_monitoring import PagesByDay, collect_tpu_samples, read_saved_pages
from flopledger.collectors.limits import DEFAULT_LIMITS, Limits
from flopledger.pipelines.inputs import source_inputs
from flopledger.pipelines.loading import counts_metadata, load_minutes, run_limits
from flopledger.pipelines.partitions import daily_raw_asset, window_days
from flopledger.pipelines.resources import Flopledger
from flopledger.pipelines.run_tags import run_now
from flopledger.settings import CloudMonitoringConfig
from flopledger.warehouse import Warehouse


def _read(
    source: CloudMonitoringConfig, files: list, days: list, limits: Limits = DEFAULT_LIMITS
) -> tuple:
    """Saved pages when paths are configured (even if they match nothing yet); else the API
    (which asks only for the window's minutes)."""
    if source.paths:
        return read_saved_pages(files, inventory=source.inventory, limits=limits)
    if source.project_id is None:
        raise ValueError(
            "sources.cloud_monitoring: give paths (saved pages) or project_id (the API)"
        )
    start = datetime.combine(days[0], time())
    end = datetime.combine(days[-1] + timedelta(days=1), time())
    return collect_tpu_samples(
        source.project_id,
        start,
        end,
        endpoint=source.endpoint,
        filter=source.filter,
        inventory=source.inventory,
        deadline_s=source.deadline_s,
    )


def _load_pages_by_day(
    context: dg.AssetExecutionContext,
    warehouse: Warehouse,
    source: CloudMonitoringConfig,
    files: list,
    days: list,
    limits: Limits,
) -> tuple[dict[str, dg.MetadataValue], list[str]]:
    """Saved pages loaded a day at a time, so that memory holds a day of the fleet's points,
    not the window's; each point and each refusal counted once (collectors' PagesByDay)."""
    pages = PagesByDay(files, inventory=source.inventory, limits=limits)
    totals: Counter[str] = Counter()
    for day in sorted(days):
        samples, quarantined = pages.day(day)
        counts = load_minutes(warehouse, "tpu_samples", samples, quarantined, [day])
        totals.update({k: v.value for k, v in counts.items()})
        context.log.info(f"cloud_monitoring {day}: {counts['rows_loaded'].value:,} rows")
    # Points of days outside the window (counted as such, never dropped without a word; no
    # day replaced) and what the files read after the window's last day refused.
    samples, quarantined, notes = pages.rest()
    counts = load_minutes(warehouse, "tpu_samples", samples, quarantined, [])
    totals.update({k: v.value for k, v in counts.items()})
    return counts_metadata(**totals), notes


def build_assets(partitions: dg.PartitionsDefinition) -> list[dg.AssetsDefinition]:
    @daily_raw_asset(
        "tpu_samples", partitions, "One row per TPU chip per minute from Cloud Monitoring."
    )
    def tpu_samples(
        context: dg.AssetExecutionContext, flopledger: Flopledger
    ) -> dg.MaterializeResult:
        config, warehouse = flopledger.config(), flopledger.warehouse()
        source, days = config.sources.cloud_monitoring, window_days(context)
        if source is None or not (source.paths or source.project_id):
            return dg.MaterializeResult(
                metadata={"skipped": dg.MetadataValue.text("not configured")}
            )
        inputs = source_inputs(config, "cloud_monitoring", context.run_id, days)  # local or gs://
        limits = run_limits(config, run_now(context, flopledger))
        if source.paths:
            metadata, notes = _load_pages_by_day(
                context, warehouse, source, inputs.paths, days, limits
            )
        else:
            samples, quarantined, notes = _read(source, inputs.paths, days, limits)
            metadata = load_minutes(warehouse, "tpu_samples", samples, quarantined, days)
        for note in notes[:20]:
            context.log.warning(f"cloud_monitoring: {note}")
        metadata["unmapped_series"] = dg.MetadataValue.int(len(notes))
        metadata.update(inputs.metadata(context))
        return dg.MaterializeResult(metadata=metadata)

    return [tpu_samples]
