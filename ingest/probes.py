"""Probe JSONL into `probe_results`, by the UTC day of `measured_at`."""

from datetime import date

import pyarrow as pa
import pyarrow.compute as pc

from flopledger.collectors.probe_results import ProbeRead, probe_days, read_probe_results
from flopledger.collectors.quarantine import Quarantined
from flopledger.ingest.loading import replace_days, store_quarantine
from flopledger.ingest.run import IngestRun
from flopledger.ingest.source import Loaded, Source, Table
from flopledger.warehouse import Warehouse


def load_days(
    warehouse: Warehouse,
    results: pa.Table,
    quarantined: list[Quarantined],
    days: list[date],
    read: ProbeRead | None = None,
) -> dict[str, int]:
    """Replace the window's days that have results, and store what was quarantined."""
    rows = replace_days(warehouse, "probe_results", "measured_at", results, days)
    store_quarantine(warehouse, quarantined)
    read = read or ProbeRead(rows_read=results.num_rows + len(quarantined))
    return {
        "rows_read": read.rows_read,
        "rows_loaded": rows.num_rows,
        "rows_duplicate": read.duplicates,
        "rows_quarantined": len(quarantined),
        "rows_outside_window": results.num_rows - rows.num_rows,
        "rows_failed": int(pc.sum(pc.invert(rows["verified"])).as_py() or 0),
    }


class Probes(Source):
    name = "probes"
    tables = (
        Table(
            "probe_results",
            "One row per probe measurement (node, device, dtype, shape) from the probe CLI's JSONL.",
        ),
    )
    # A probe file named for a day holds that day's results, and those of a sweep that ran on
    # past midnight (the CLI names its file for the day it started); an undated file is read
    # every run, whole.
    day_slack = 1

    def find_days(self, run: IngestRun) -> set[date]:
        """Probe files are small and carry no day in their name: the days of their measurements."""
        return probe_days(self.inputs(run).paths, run.limits)

    def load(self, run: IngestRun) -> Loaded:
        if run.config.sources.probes is None:
            return self.not_configured()
        inputs = self.inputs(run, run.days)  # local or gs://
        read = ProbeRead()
        results, quarantined = read_probe_results(inputs.paths, run.limits, read)
        counts = load_days(run.warehouse, results, quarantined, run.days, read)
        run.info(f"probes: {len(inputs.paths)} file(s), {counts['rows_loaded']} rows")
        return {"probe_results": {**counts, **inputs.metadata(run)}}
