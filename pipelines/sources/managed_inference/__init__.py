"""Managed inference (gateway request logs, providers' usage and cost exports, the price book)
into `managed_requests`, `managed_usage`, `managed_costs` and `managed_prices`.

Every source has the same files: `assets.py` (`build_assets(partitions)`) and `checks.py`
(`build_checks()`). The jobs and schedules that run them are in `pipelines/`."""

import dagster as dg

from flopledger.pipelines.sources.managed_inference import assets, checks


def build(partitions: dg.PartitionsDefinition) -> dg.Definitions:
    return dg.Definitions(
        assets=assets.build_assets(partitions), asset_checks=checks.build_checks()
    )
