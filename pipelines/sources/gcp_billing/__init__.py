"""The GCP billing export source."""

import dagster as dg

from pipelines.sources.gcp_billing import assets


def build(partitions: dg.PartitionsDefinition) -> dg.Definitions:
    return dg.Definitions(assets=assets.build_assets(partitions))
