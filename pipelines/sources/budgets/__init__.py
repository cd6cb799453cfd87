"""Budgets and alerts: budget status, alerts, their checks, the schedules and the notifier sensors."""

import dagster as dg

from pipelines.sources.budgets import assets, checks, schedules, sensors


def build(partitions: dg.PartitionsDefinition) -> dg.Definitions:
    return dg.Definitions(
        assets=assets.ASSETS,
        asset_checks=checks.CHECKS,
        schedules=schedules.build_schedules(partitions),
        sensors=sensors.SENSORS,
    )
