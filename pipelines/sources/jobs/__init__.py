"""Job metadata (the jobs file, Slurm `sacct --json`) into `jobs` and `job_placements`.

Every source has the same files: `assets.py` (`build_assets(partitions)`) and `checks.py`
(`build_checks()`). The jobs and schedules that run them are in `pipelines/`."""

import dagster as dg

from flopledger.pipelines.sources.jobs import assets, checks


def build(partitions: dg.PartitionsDefinition) -> dg.Definitions:
    return dg.Definitions(
        assets=assets.build_assets(partitions), asset_checks=checks.build_checks()
    )
