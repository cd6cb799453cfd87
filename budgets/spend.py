"""Read what budgets and rules measure from the warehouse: daily spend in a scope, and as-of time.

A scope without a workload class is matched against billing rows (effective cost =
cost + credits, USD; team = the row's `team` label, as in spend_daily). A scope with a
workload class is matched against the cost allocated to runs (run_allocation by hour plus
billing rows labelled with a run, by its start day), joined to `jobs` for team, project,
class, accelerator type and labels. The queries are models/queries/billing_spend_by_day.sql
and allocated_spend_by_day.sql; every scope value is bound by name, never formatted into SQL.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from flopledger.budgets.budget_file import Scope
from flopledger.models import query_sql
from flopledger.warehouse import Warehouse

# Per basis: the query and the figure it sums (the billing rows' effective cost, or the cost
# allocated to runs).
QUERIES = {
    "billing": ("billing_spend_by_day", "effective_cost"),
    "allocated": ("allocated_spend_by_day", "run_cost"),
}


def scope_params(scope: Scope, group_by: str | None = None) -> dict[str, Any]:
    """The parameters of the scope's spend query: every list bound (empty means any)."""
    params: dict[str, Any] = {
        "group_by": group_by,
        "teams": list(scope.team or []),
        "projects": list(scope.project or []),
        "accelerator_types": list(scope.accelerator_type or []),
        "label_keys": list(scope.labels),
        "label_values": list(scope.labels.values()),
    }
    if scope.basis == "allocated":
        params["workload_classes"] = list(scope.workload_class or [])
    return params


def scoped_daily_spend(
    warehouse: Warehouse, scope: Scope, group_by: str | None = None
) -> dict[tuple[str | None, date], Decimal]:
    """(group value or None, day) -> effective cost (USD) in the scope."""
    name, column = QUERIES[scope.basis]
    rows = warehouse.query(query_sql(name), scope_params(scope, group_by)).to_pylist()
    return {(r["group_value"], r["day"]): r[column] for r in rows if r[column] is not None}


def by_day(spend: dict[tuple[str | None, date], Decimal]) -> dict[date, Decimal]:
    return {day: value for (_, day), value in spend.items()}


def data_bounds(warehouse: Warehouse) -> tuple[date | None, datetime | None]:
    """The first billed UTC day and the end of the latest billed usage window."""
    row = warehouse.query(query_sql("billing_bounds")).to_pylist()[0]
    return row["first"], row["last"]
