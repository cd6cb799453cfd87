"""Spool files into `gpu_samples`, one partition per UTC day of the minutes."""

from collections import Counter

import dagster as dg

from collectors.nvml.read import read_spool
from pipelines.inputs import SourceInputs, source_inputs
from pipelines.loading import counts_metadata, load_minutes
from pipelines.partitions import daily_raw_asset, window_days
from pipelines.resources import Flopledger


def build_assets(partitions: dg.PartitionsDefinition) -> list[dg.AssetsDefinition]:
    @daily_raw_asset(
        "gpu_samples", partitions, "One row per GPU per minute from the NVML agent's spool files."
    )
    def gpu_samples(
        context: dg.AssetExecutionContext, flopledger: Flopledger
    ) -> dg.MaterializeResult:
        config, warehouse = flopledger.config(), flopledger.warehouse()
        if config.sources.nvml_spool is None:
            return dg.MaterializeResult(
                metadata={"skipped": dg.MetadataValue.text("not configured")}
            )
        totals: Counter[str] = Counter()
        taken = SourceInputs()
        # A day at a time, so that memory holds one day of the fleet's minutes, not the window's;
        # the paths are listed once for the run and each object fetched once (pipelines/inputs.py).
        for day in window_days(context):
            inputs = source_inputs(config, "nvml_spool", context.run_id, [day])
            samples, quarantined = read_spool(inputs.paths)
            counts = load_minutes(warehouse, "gpu_samples", samples, quarantined, [day])
            totals.update({k: v.value for k, v in counts.items()})
            taken.add(inputs)
            context.log.info(f"nvml_spool {day}: {counts['rows_loaded'].value:,} rows")
        return dg.MaterializeResult(
            metadata={**counts_metadata(**totals), **taken.metadata(context)}
        )

    return [gpu_samples]
