"""Checks on `gpu_samples`: it keeps up with the bill."""

import dagster as dg

from flopledger.pipelines.freshness import freshness_check


def build_checks() -> list[dg.AssetChecksDefinition]:
    return [freshness_check("gpu_samples", "gpu_samples", "nvml_spool")]
