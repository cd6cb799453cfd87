"""Probe results: the JSONL the probe CLI writes on each node, and the spec-sheet peaks."""

import dagster as dg

from pipelines.sources.probes import assets, checks


def build(partitions: dg.PartitionsDefinition) -> dg.Definitions:
    return dg.Definitions(
        assets=[*assets.build_assets(partitions), assets.accelerator_specs],
        asset_checks=[checks.probes_verified],
    )
