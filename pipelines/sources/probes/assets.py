"""Probe JSONL into `probe_results`, one partition per UTC day of `measured_at`."""

from datetime import date

import dagster as dg
import pyarrow as pa
import pyarrow.compute as pc

from collectors.probe_results import read_probe_results
from collectors.quarantine import Quarantined
from pipelines.inputs import source_inputs
from pipelines.loading import counts_metadata, replace_days, store_quarantine
from pipelines.partitions import daily_raw_asset, window_days
from pipelines.resources import Flopledger
from warehouse import Warehouse


def load_days(
    warehouse: Warehouse, results: pa.Table, quarantined: list[Quarantined], days: list[date]
) -> dict[str, dg.MetadataValue]:
    """Replace the window's days that have results, and store what was quarantined."""
    rows = replace_days(warehouse, "probe_results", "measured_at", results, days)
    store_quarantine(warehouse, quarantined)
    return counts_metadata(
        rows_read=results.num_rows + len(quarantined),
        rows_loaded=rows.num_rows,
        rows_quarantined=len(quarantined),
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
        results, quarantined = read_probe_results(inputs.paths)
        metadata = load_days(flopledger.warehouse(), results, quarantined, days)
        context.log.info(
            f"probes: {len(inputs.paths)} file(s), {metadata['rows_loaded'].value} rows"
        )
        return dg.MaterializeResult(metadata={**metadata, **inputs.metadata(context)})

    return [probe_results]
