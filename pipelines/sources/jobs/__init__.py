"""Job metadata: the jobs file and Slurm sacct --json."""

import dagster as dg

from pipelines.sources.jobs import assets


def build(partitions: dg.PartitionsDefinition) -> dg.Definitions:
    return dg.Definitions(assets=assets.build_assets(partitions))
