"""Checks on `tpu_samples`: it keeps up with the bill."""

import dagster as dg

from flopledger.pipelines.freshness import freshness_check


def build_checks() -> list[dg.AssetChecksDefinition]:
    return [freshness_check("tpu_samples", "tpu_samples", "cloud_monitoring")]
