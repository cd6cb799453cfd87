"""The UTC days the inputs hold, per source: what `flopledger run` materialises.

Inputs are found as the run's assets find them (pipelines/inputs.py), under the run's key:
the listing made here is the one the run uses, and what is downloaded here is not again."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from flopledger.collectors.cloud_monitoring.pages import page_days
from flopledger.collectors.focus.read import read_focus_files
from flopledger.collectors.gcp_billing.days import usage_days
from flopledger.collectors.inference.days import managed_days
from flopledger.collectors.jobs.read import read_jobs_files
from flopledger.collectors.kubernetes.read import read_pod_files
from flopledger.collectors.limits import Limits
from flopledger.collectors.probe_results import probe_days
from flopledger.pipelines.inputs import pattern_inputs, source_inputs, source_listing
from flopledger.pipelines.loading import run_limits
from flopledger.pipelines.sources.gcp_billing.export import export_config, export_input_days
from flopledger.settings import Config
from flopledger.warehouse import open_warehouse


def _limits(config: Config) -> Limits:
    """A day outside the plausible window is never a day to ingest (its rows are quarantined):
    one 1970 row must not open a 20,000-day window. The wall clock: this is the run's edge."""
    return run_limits(config, datetime.now(UTC))


def _billing(config: Config, run_key: str | None = None) -> set[date]:
    days = usage_days(source_inputs(config, "gcp_billing", run_key).paths, _limits(config))
    if export_config(config) is None:
        return days
    # The export table (sources.gcp_billing.bigquery): the days of the rows not yet taken.
    warehouse = open_warehouse(config.warehouse)
    return days | export_input_days(config, warehouse, datetime.now(UTC).date())


def _jobs(config: Config, run_key: str | None = None) -> set[date]:
    jobs = read_jobs_files(source_inputs(config, "jobs", run_key).paths, _limits(config)).jobs
    return {d for d in jobs["submitted_day"].to_pylist() if d is not None}


def _spool(config: Config, run_key: str | None = None) -> set[date]:
    """Spool files are named by their first minute (the listing has it: nothing is fetched);
    a file may run into the next day."""
    days = {o.day for o in source_listing(config, "nvml_spool", run_key) if o.day is not None}
    return days | {d + timedelta(days=1) for d in days}


def _probes(config: Config, run_key: str | None = None) -> set[date]:
    """Probe files are small and carry no day in their name: the days of their measurements."""
    return probe_days(source_inputs(config, "probes", run_key).paths, _limits(config))


def _managed(config: Config, run_key: str | None = None) -> set[date]:
    """The days of the gateway's requests and of the providers' usage and cost buckets."""
    gateway = source_inputs(config, "managed_inference", run_key).paths
    key = "sources.managed_inference.provider_exports"
    return managed_days(
        gateway,
        config.sources.managed_inference,
        lambda patterns: pattern_inputs(config, key, patterns, run_key).paths,
    )


def _focus(config: Config, run_key: str | None = None) -> set[date]:
    """The days of the FOCUS rows' charge period starts (files are read whole)."""
    read = read_focus_files(source_inputs(config, "focus", run_key).paths, _limits(config))
    return set(read.table["charge_day"].to_pylist())


def _kubernetes(config: Config, run_key: str | None = None) -> set[date]:
    """The submission days of the pods' runs (sources.kubernetes)."""
    source = config.sources.kubernetes
    labels = source.labels if source else None
    runs = read_pod_files(source_inputs(config, "kubernetes", run_key).paths, labels).jobs
    return {d for d in runs["submitted_day"].to_pylist() if d is not None}


def _monitoring(config: Config, run_key: str | None = None) -> set[date]:
    """Saved pages' days, from a scan of their endTime values: a TPU day no bill or run names
    is still ingested (the API, without paths, follows the other sources' days)."""
    source = config.sources.cloud_monitoring
    if source is None or not source.paths:
        return set()
    return page_days(source_inputs(config, "cloud_monitoring", run_key).paths, _limits(config))


DAY_FINDERS = {
    "gcp_billing": _billing,
    "jobs": _jobs,
    "nvml_spool": _spool,
    "probes": _probes,
    "managed_inference": _managed,
    "kubernetes": _kubernetes,
    "cloud_monitoring": _monitoring,
    "focus": _focus,
}


def input_days(config: Config, run_key: str | None = None) -> set[date]:
    """`run_key`: the id of the run that will ingest them, so it lists nothing again."""
    days: set[date] = set()
    for name, finder in DAY_FINDERS.items():
        if getattr(config.sources, name) is not None:
            days |= finder(config, run_key)
    return days
