"""TPU time series (the API, or saved ListTimeSeriesResponse pages) into `tpu_samples`, by the
UTC day of the minutes."""

from collections import Counter
from datetime import date, datetime, time, timedelta

from flopledger.collectors.cloud_monitoring import PagesByDay
from flopledger.collectors.cloud_monitoring.pages import page_days
from flopledger.collectors.limits import Limits
from flopledger.ingest.loading import load_minutes
from flopledger.ingest.run import IngestRun
from flopledger.ingest.source import Loaded, Metadata, Source, Table
from flopledger.settings import CloudMonitoringConfig
from flopledger.warehouse import Warehouse


def _from_api(source: CloudMonitoringConfig, project_id: str, days: list) -> tuple:
    """The API's series for the window's minutes (the source has no saved pages)."""
    start = datetime.combine(days[0], time())
    end = datetime.combine(days[-1] + timedelta(days=1), time())
    # the gRPC client loads here, not with every run (most read saved pages)
    from flopledger.collectors.cloud_monitoring.collect import collect_tpu_samples

    return collect_tpu_samples(
        project_id,
        start,
        end,
        endpoint=source.endpoint,
        filter=source.filter,
        inventory=source.inventory,
        deadline_s=source.deadline_s,
    )


def _load_pages_by_day(
    run: IngestRun,
    warehouse: Warehouse,
    source: CloudMonitoringConfig,
    files: list,
    days: list,
    limits: Limits,
) -> tuple[dict[str, int], list[str]]:
    """Saved pages loaded a day at a time, so that memory holds a day of the fleet's points,
    not the window's; each point and each refusal counted once (collectors' PagesByDay)."""
    pages = PagesByDay(files, inventory=source.inventory, limits=limits)
    totals: Counter[str] = Counter()
    for day in sorted(days):
        samples, quarantined = pages.day(day)
        counts = load_minutes(warehouse, "tpu_samples", samples, quarantined, [day])
        totals.update(counts)
        run.info(f"cloud_monitoring {day}: {counts['rows_loaded']:,} rows")
    # Points of days outside the window (counted as such, never dropped without a word; no
    # day replaced) and what the files read after the window's last day refused.
    samples, quarantined, notes = pages.rest()
    totals.update(load_minutes(warehouse, "tpu_samples", samples, quarantined, []))
    return dict(totals), notes


class CloudMonitoring(Source):
    name = "cloud_monitoring"
    tables = (Table("tpu_samples", "One row per TPU chip per minute from Cloud Monitoring."),)
    # A saved page named for a day holds that day's points (an undated one is read every run).
    day_slack = 0

    def find_days(self, run: IngestRun) -> set[date]:
        """Saved pages' days, from a scan of their endTime values: a TPU day no bill or run names
        is still ingested (the API, without paths, follows the other sources' days)."""
        source = run.config.sources.cloud_monitoring
        if source is None or not source.paths:
            return set()
        return page_days(self.inputs(run).paths, run.limits)

    def load(self, run: IngestRun) -> Loaded:
        source, days = run.config.sources.cloud_monitoring, run.days
        if source is None or not (source.paths or source.project_id):
            return self.not_configured()
        inputs = self.inputs(run, days)  # local or gs://
        limits = run.limits
        metadata: Metadata
        if source.paths:
            totals, notes = _load_pages_by_day(
                run, run.warehouse, source, inputs.paths, days, limits
            )
            metadata = {**totals}
        else:  # configured: paths, else a project_id
            samples, quarantined, notes = _from_api(source, str(source.project_id), days)
            metadata = {**load_minutes(run.warehouse, "tpu_samples", samples, quarantined, days)}
        for note in notes[:20]:
            run.warning(f"cloud_monitoring: {note}")
        metadata["unmapped_series"] = len(notes)
        metadata.update(inputs.metadata(run))
        return {"tpu_samples": metadata}
