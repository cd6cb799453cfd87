"""GPU counters from the NVML agent's spool files."""

import dagster as dg

from pipelines.sources.nvml_spool import assets
from pipelines.telemetry import freshness_check


def build(partitions: dg.PartitionsDefinition) -> dg.Definitions:
    return dg.Definitions(
        assets=assets.build_assets(partitions),
        asset_checks=[freshness_check("gpu_samples", "gpu_samples", "nvml_spool")],
    )
