"""Efficiency rules: idle cost share per project, or mean utilisation per team, over a window.

Idle share is the glossary's "Idle share of cost" (figures/__init__.py): (unallocated +
allocated idle cost) / accelerator resource cost per project, read from the figure's one query
(idle_figures, grouped by project, as the Idle page groups it); a project whose accelerator
resource cost is not above zero has no share to alert on. Mean utilisation is the figure's one
query too (run_totals, grouped by run-owner team over the runs started in the window): the
runs' mean_utilisation_pct weighted by accelerator-hours; it is null until telemetry lands, and
then no utilisation alert fires.
"""

from __future__ import annotations

from datetime import date, timedelta

from flopledger.budgets.alerts import Alert
from flopledger.budgets.budget_file import EfficiencyRule
from flopledger.figures import figure
from flopledger.models import query_sql
from flopledger.warehouse import Warehouse


def measure(warehouse: Warehouse, rule: EfficiencyRule, as_of_day: date) -> dict[str, float]:
    """group -> the rule's metric over the `window_days` complete days before `as_of_day`."""
    start = as_of_day - timedelta(days=rule.window_days)
    if rule.metric == "idle_cost_share":
        params = {"start_day": start, "end_day": as_of_day - timedelta(days=1),
                  "providers": [], "projects": [], "accelerators": [], "group_by": "project_id"}  # fmt: skip
        rows = warehouse.query(query_sql("idle_figures"), params).to_pylist()
        return {
            r["group_value"]: r["idle_share_of_cost"]
            for r in rows
            if r["idle_share_of_cost"] is not None and r["accelerator_cost"] > 0
        }
    params = {"start_day": start, "end_day": as_of_day - timedelta(days=1),
              "providers": [], "teams": [], "projects": [], "classes": [], "accelerators": [],
              "needle": "", "group_by": "team"}  # fmt: skip
    rows = warehouse.query(query_sql("run_totals"), params).to_pylist()
    return {
        r["group_value"]: r["mean_utilisation_pct"]
        for r in rows
        if r["mean_utilisation_pct"] is not None
    }


def _breached(rule: EfficiencyRule, value: float) -> bool:
    if rule.above is not None:
        return value > rule.above
    return rule.below is not None and value < rule.below


# How each metric is named and printed in alerts: the idle share under its glossary name
# (figures/__init__.py) as a percentage; the rule's limit is a fraction for it (above: 0.3 = 30%).
def metric_name(metric: str) -> str:
    key = "idle_share_of_cost" if metric == "idle_cost_share" else "mean_utilisation_pct"
    return figure(key).name


def metric_text(metric: str, value: float) -> str:
    return f"{value:.1%}" if metric == "idle_cost_share" else f"{value:.1f}%"


def efficiency_alerts(
    rule: EfficiencyRule, values: dict[str, float], as_of_day: date
) -> list[Alert]:
    year, week, _ = as_of_day.isocalendar()
    alerts = []
    for group, value in sorted(values.items()):
        if not _breached(rule, value):
            continue
        limit = rule.above if rule.above is not None else (rule.below or 0.0)
        side = f"{'above' if rule.above is not None else 'below'} {metric_text(rule.metric, limit)}"
        shown = metric_text(rule.metric, value)
        alerts.append(
            Alert(
                alert_id=f"efficiency:{rule.name}:{group}:{year}-W{week:02d}",
                kind="efficiency",
                subject=rule.name,
                severity="info",
                title=f"{metric_name(rule.metric)} of {group} is {shown} ({side})",
                message=(
                    f"{metric_name(rule.metric)} {shown} over the {rule.window_days} days before "
                    f"{as_of_day} ({rule.name}; see docs/glossary.md)"
                ),
                channels=list(rule.channels),
                details={
                    "group": group,
                    "metric": rule.metric,
                    "value": value,
                    "window_end": as_of_day,
                },
            )
        )
    return alerts
