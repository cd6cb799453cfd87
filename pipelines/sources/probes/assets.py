"""Probe JSONL into `probe_results`, one partition per UTC day of `measured_at`."""

from datetime import date

import dagster as dg
import pyarrow as pa
import pyarrow.compute as pc

from flopledger.collectors.probe_results import ProbeRead, read_probe_results
from flopledger.collectors.quarantine import Quarantined
from flopledger.pipelines.inputs import source_inputs
from flopledger.pipelines.loading import counts_metadata, replace_days, run_limits, store_quarantine
from flopledger.pipelines.partitions import daily_raw_asset, window_days
from flopledger.pipelines.resources import Flopledger
from flopledger.pipelines.run_tags import run_now
from flopledger.warehouse import Warehouse


def load_days(
    warehouse: Warehouse,
    results: pa.Table,
    quarantined: list[Quarantined],
    days: list[date],
    read: ProbeRead | None = None,
) -> dict[str, dg.MetadataValue]:
    """Replace the window's days that have results, and store what was quarantined."""
    rows = replace_days(warehouse, "probe_results", "measured_at", results, days)
    store_quarantine(warehouse, quarantined)
    read = read or ProbeRead(rows_read=results.num_rows + len(quarantined))
    return counts_metadata(
        rows_read=read.rows_read,
        rows_loaded=rows.num_rows,
        rows_duplicate=read.duplicates,
        rows_quarantined=len(quarantined),
        rows_outside_window=results.num_rows - rows.num_rows,
        rows_failed=int(pc.sum(pc.invert(rows["verified"])).as_py() or 0),
    )


def build_assets(partitions: dg.PartitionsDefinition) -> list[dg.AssetsDefinition]:
    @daily_raw_asset(
        "probe_results",
        partitions,
        "One row per probe measurement (node, device, dtype, shape) from the probe CLI's JSONL.",
    )
    def probe_results(
        context: dg.AssetExecutionContext, flopledger: Flopledger
    ) -> dg.MaterializeResult:
        config = flopledger.config()
        if config.sources.probes is None:
            return dg.MaterializeResult(
                metadata={"skipped": dg.MetadataValue.text("not configured")}
            )
        days = window_days(context)
        inputs = source_inputs(config, "probes", context.run_id, days)  # local or gs://
        read, limits = ProbeRead(), run_limits(config, run_now(context, flopledger))
        results, quarantined = read_probe_results(inputs.paths, limits, read)
        metadata = load_days(flopledger.warehouse(), results, quarantined, days, read)
        context.log.info(
            f"probes: {len(inputs.paths)} file(s), {metadata['rows_loaded'].value} rows"
        )
        return dg.MaterializeResult(metadata={**metadata, **inputs.metadata(context)})

    return [probe_results]
