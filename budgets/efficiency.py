"""Efficiency rules: idle cost share per project, or mean utilisation per team, over a window.

Idle share comes from idle_capacity_daily ((unallocated + allocated idle cost) / effective
cost). Utilisation comes from cost_per_run's mean_utilisation_pct, weighted by
accelerator-hours; it is null until telemetry lands, and then no utilisation alert fires.
"""

from __future__ import annotations

from datetime import date, timedelta

from budgets.alerts import Alert
from budgets.budget_file import EfficiencyRule
from warehouse import Warehouse

IDLE_SHARE = """
SELECT project_id AS grp,
       CAST(sum(unallocated_idle_cost) + coalesce(sum(allocated_idle_cost), 0) AS DOUBLE)
         / CAST(sum(effective_cost) AS DOUBLE) AS value
FROM idle_capacity_daily
WHERE day >= ? AND day < ?
GROUP BY project_id
HAVING sum(effective_cost) > 0
"""

MEAN_UTILISATION = """
SELECT coalesce(team, '__unallocated__') AS grp,
       sum(mean_utilisation_pct * accelerator_hours) / sum(accelerator_hours) AS value
FROM cost_per_run
WHERE mean_utilisation_pct IS NOT NULL AND accelerator_hours > 0
  AND CAST(started_at AS DATE) >= ? AND CAST(started_at AS DATE) < ?
GROUP BY ALL
"""

QUERIES = {"idle_cost_share": IDLE_SHARE, "mean_utilisation_pct": MEAN_UTILISATION}


def measure(warehouse: Warehouse, rule: EfficiencyRule, as_of_day: date) -> dict[str, float]:
    """group -> the rule's metric over the `window_days` complete days before `as_of_day`."""
    start = as_of_day - timedelta(days=rule.window_days)
    rows = warehouse.query(QUERIES[rule.metric], [start, as_of_day]).to_pylist()
    return {r["grp"]: r["value"] for r in rows if r["value"] is not None}


def _breached(rule: EfficiencyRule, value: float) -> bool:
    if rule.above is not None:
        return value > rule.above
    return rule.below is not None and value < rule.below


def efficiency_alerts(rule: EfficiencyRule, values: dict[str, float], as_of_day: date) -> list[Alert]:
    year, week, _ = as_of_day.isocalendar()
    alerts = []
    for group, value in sorted(values.items()):
        if not _breached(rule, value):
            continue
        side = f"above {rule.above:g}" if rule.above is not None else f"below {rule.below:g}"
        alerts.append(Alert(
            alert_id=f"efficiency:{rule.name}:{group}:{year}-W{week:02d}",
            kind="efficiency", subject=rule.name, severity="info",
            title=f"{rule.metric} of {group} is {value:.3g} ({side})",
            message=f"{rule.metric} {value:.3g} over the {rule.window_days} days before {as_of_day} ({rule.name})",
            channels=list(rule.channels),
            details={"group": group, "metric": rule.metric, "value": value, "window_end": as_of_day},
        ))
    return alerts
