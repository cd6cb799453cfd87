"""Budgets and alerts in Dagster: budget status and alerts (assets), their checks, and the
notifier sensors. The logic is in the top-level `budgets/` package."""

import dagster as dg

from flopledger.pipelines.alerts import assets, checks, sensors


def build() -> dg.Definitions:
    return dg.Definitions(assets=assets.ASSETS, asset_checks=checks.CHECKS, sensors=sensors.SENSORS)
