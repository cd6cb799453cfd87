"""TPU metrics from Cloud Monitoring (the API, or saved ListTimeSeriesResponse pages) into `tpu_samples`.

Every source has the same files: `assets.py` (`build_assets(partitions)`) and `checks.py`
(`build_checks()`). The jobs and schedules that run them are in `pipelines/`."""

import dagster as dg

from flopledger.pipelines.sources.cloud_monitoring import assets, checks


def build(partitions: dg.PartitionsDefinition) -> dg.Definitions:
    return dg.Definitions(
        assets=assets.build_assets(partitions), asset_checks=checks.build_checks()
    )
