"""Every source, one line each, and the UTC days their inputs hold: what `flopledger run`
materialises.

Inputs are found as the run's assets find them (ingest/inputs.py), under the run's key: the
listing made here is the one the run uses, and what is downloaded here is not again."""

from __future__ import annotations

from collections.abc import Collection
from datetime import UTC, date, datetime

from flopledger.ingest.cloud_monitoring import CloudMonitoring
from flopledger.ingest.focus import Focus
from flopledger.ingest.gcp_billing.source import GcpBilling
from flopledger.ingest.inputs import list_sources
from flopledger.ingest.jobs import Jobs
from flopledger.ingest.managed_inference import ManagedInference
from flopledger.ingest.nvml_spool import NvmlSpool
from flopledger.ingest.probes import Probes
from flopledger.ingest.run import IngestRun
from flopledger.ingest.source import Source
from flopledger.settings import Config
from flopledger.warehouse import open_warehouse

# Add a source here (pipelines/sources.py makes its asset from this list).
SOURCES: tuple[Source, ...] = (
    GcpBilling(),
    Jobs(),
    NvmlSpool(),
    CloudMonitoring(),
    Probes(),
    ManagedInference(),
    Focus(),
)


def writing(tables: Collection[str] | None) -> tuple[Source, ...]:
    """The sources that write one of `tables` (every source when None)."""
    if tables is None:
        return SOURCES
    return tuple(s for s in SOURCES if any(t.name in tables for t in s.tables))


def input_days(
    config: Config, run_key: str | None = None, tables: Collection[str] | None = None
) -> set[date]:
    """`run_key`: the id of the run that will ingest them, so it lists nothing again;
    `tables`: the run's (the telemetry job's samples), else every source's.

    A day outside the plausible window is never a day to ingest (its rows are quarantined):
    one 1970 row must not open a 20,000-day window. The wall clock: this is the run's edge."""
    now = datetime.now(UTC).replace(tzinfo=None)
    run = IngestRun(config, open_warehouse(config.warehouse), now, run_key)
    days: set[date] = set()
    for source in writing(tables):
        if source.configured(config):
            days |= source.find_days(run)
    return days


def list_inputs(config: Config, run_key: str, tables: Collection[str] | None = None) -> None:
    """List the paths of every source writing `tables` (all when None) once under the run's
    key (ingest/inputs.py's list_sources): an hourly tick lists the samples' files alone."""
    keys = [key for source in writing(tables) for key in source.config_keys()]
    list_sources(config, keys, run_key)
