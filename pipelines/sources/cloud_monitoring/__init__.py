"""TPU metrics from Cloud Monitoring (the API, or saved ListTimeSeriesResponse pages)."""

import dagster as dg

from pipelines.sources.cloud_monitoring import assets
from pipelines.telemetry import freshness_check


def build(partitions: dg.PartitionsDefinition) -> dg.Definitions:
    return dg.Definitions(
        assets=assets.build_assets(partitions),
        asset_checks=[freshness_check("tpu_samples", "tpu_samples", "cloud_monitoring")],
    )
