"""Read what budgets and rules measure from the warehouse: daily spend in a scope, and as-of time.

A scope without a workload class is matched against billing rows (effective cost =
cost + credits, USD; team = the row's `team` label, as in spend_daily). A scope with a
workload class is matched against the cost allocated to runs (run_allocation by hour plus
billing rows labelled with a run, by its start day), joined to `jobs` for team, project,
class, accelerator type and labels. Values are always bound, never formatted into SQL.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from budgets.budget_file import Scope
from warehouse import Warehouse

BILLING_SPEND = """
SELECT usage_day AS day, {group} AS grp, sum(cost_usd + credits_total_usd) AS spend
FROM (SELECT *, coalesce(labels['team'], '__unallocated__') AS team FROM billing_line_items)
WHERE {where}
GROUP BY ALL
"""

ALLOCATED_SPEND = """
WITH run_cost AS (
    SELECT CAST(hour AS DATE) AS day, run_id, effective_cost AS cost FROM run_allocation
    UNION ALL
    SELECT CAST(coalesce(j.started_at, j.submitted_at) AS DATE), d.run_id, from_nanos(d.direct_nanos)
    FROM run_direct_costs AS d JOIN jobs AS j USING (run_id)
)
SELECT c.day, {group} AS grp, sum(c.cost) AS spend
FROM run_cost AS c JOIN (SELECT *, coalesce(team, '__unallocated__') AS team_ FROM jobs) AS j USING (run_id)
WHERE {where}
GROUP BY ALL
"""

# Column of each scope field (and group_by) in the two bases.
COLUMNS = {
    "billing": {"team": "team", "project": "project_id", "accelerator_type": "accelerator_type"},
    "allocated": {
        "team": "j.team_",
        "project": "j.project_id",
        "accelerator_type": "j.accelerator_type",
        "workload_class": "j.workload_class",
    },
}
LABELS = {"billing": "labels", "allocated": "j.labels"}


def _where(scope: Scope, basis: str) -> tuple[str, list[Any]]:
    clauses, params = ["true"], []
    for field, column in COLUMNS[basis].items():
        values = getattr(scope, field)
        if values:
            clauses.append(f"list_contains(?, {column})")
            params.append(values)
    for key, value in scope.labels.items():
        clauses.append(f"{LABELS[basis]}[?] = ?")
        params += [key, value]
    return " AND ".join(clauses), params


def scoped_daily_spend(
    warehouse: Warehouse, scope: Scope, group_by: str | None = None
) -> dict[tuple[str | None, date], Decimal]:
    """(group value or None, day) -> effective cost (USD) in the scope."""
    basis = scope.basis
    where, params = _where(scope, basis)
    group = COLUMNS[basis][group_by] if group_by else "NULL"
    template = BILLING_SPEND if basis == "billing" else ALLOCATED_SPEND
    rows = warehouse.query(template.format(where=where, group=group), params).to_pylist()
    return {(r["grp"], r["day"]): r["spend"] for r in rows if r["spend"] is not None}


def by_day(spend: dict[tuple[str | None, date], Decimal]) -> dict[date, Decimal]:
    return {day: value for (_, day), value in spend.items()}


def data_bounds(warehouse: Warehouse) -> tuple[date | None, datetime | None]:
    """The first billed UTC day and the end of the latest billed usage window."""
    row = warehouse.query("SELECT min(usage_day) AS first, max(usage_end) AS last FROM billing_line_items").to_pylist()[0]
    return row["first"], row["last"]
