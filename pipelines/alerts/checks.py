"""Checks on budget_status: WARN when a current period passed a threshold, ERROR when over budget
or forecast to overrun (where the budget asks for forecast alerts)."""

import dagster as dg

from flopledger.models import query_sql
from flopledger.pipelines.resources import Flopledger


def _current(flopledger: Flopledger) -> list[dict]:
    return flopledger.warehouse().query(query_sql("current_budget_status")).to_pylist()


@dg.asset_check(asset="budget_status", description="No current period has passed a threshold.")
def budget_thresholds(flopledger: Flopledger) -> dg.AssetCheckResult:
    crossed = [r for r in _current(flopledger) if r["thresholds_crossed"]]
    text = ", ".join(
        f"{r['budget']} {r['period_key']} at {r['percent_used']:.1f}% "
        f"(passed {max(r['thresholds_crossed']):g}%)"
        for r in crossed
    )
    return dg.AssetCheckResult(
        passed=not crossed,
        severity=dg.AssetCheckSeverity.WARN,
        description=text or "no threshold crossed",
    )


@dg.asset_check(
    asset="budget_status", description="No budget is over, or forecast over, its amount."
)
def budget_not_exceeded(flopledger: Flopledger) -> dg.AssetCheckResult:
    bad = [r for r in _current(flopledger) if r["over_budget"] or r["overrun"]]
    text = ", ".join(
        f"{r['budget']} {r['period_key']}: "
        + ("over budget" if r["over_budget"] else "forecast")
        + f" {r['percent_used' if r['over_budget'] else 'forecast_percent']:.1f}%"
        for r in bad
    )
    return dg.AssetCheckResult(
        passed=not bad,
        severity=dg.AssetCheckSeverity.ERROR,
        description=text or "every budget within its amount",
    )


CHECKS = [budget_thresholds, budget_not_exceeded]
