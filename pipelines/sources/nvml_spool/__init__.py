"""GPU counters from the NVML agent's spool files into `gpu_samples`.

Every source has the same files: `assets.py` (`build_assets(partitions)`) and `checks.py`
(`build_checks()`). The jobs and schedules that run them are in `pipelines/`."""

import dagster as dg

from flopledger.pipelines.sources.nvml_spool import assets, checks


def build(partitions: dg.PartitionsDefinition) -> dg.Definitions:
    return dg.Definitions(
        assets=assets.build_assets(partitions), asset_checks=checks.build_checks()
    )
