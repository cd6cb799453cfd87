"""Spool files into `gpu_samples`, one partition per UTC day of the minutes."""

from collections import Counter

import dagster as dg

from flopledger.collectors.nvml.read import SpoolCarry, SpoolRead, read_spool
from flopledger.pipelines.inputs import SourceInputs, source_inputs
from flopledger.pipelines.loading import counts_metadata, load_minutes, run_limits
from flopledger.pipelines.partitions import daily_raw_asset, window_days
from flopledger.pipelines.resources import Flopledger
from flopledger.pipelines.run_tags import run_now


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
        limits = run_limits(config, run_now(context, flopledger))
        # Each file opened once: its rows of the next day wait in `carry` for that day.
        carry = SpoolCarry()
        for day in window_days(context):
            inputs = source_inputs(config, "nvml_spool", context.run_id, [day])
            # Only the rows whose home day is `day`: each row and each refusal counted once.
            read = SpoolRead()
            samples, quarantined = read_spool(
                inputs.paths, day=day, stats=read, limits=limits, carry=carry
            )
            counts = load_minutes(
                warehouse,
                "gpu_samples",
                samples,
                quarantined,
                [day],
                read.rows_read,
                read.duplicates,
            )
            totals.update({k: v.value for k, v in counts.items()})
            taken.add(inputs)
            context.log.info(f"nvml_spool {day}: {counts['rows_loaded'].value:,} rows")
        return dg.MaterializeResult(
            metadata={**counts_metadata(**totals), **taken.metadata(context)}
        )

    return [gpu_samples]
