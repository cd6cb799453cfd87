"""From the warehouse and budgets.yaml to budget status rows and the alerts they raise."""

from __future__ import annotations

from datetime import datetime, timedelta

from flopledger.budgets.alerts import Alert
from flopledger.budgets.budget_file import BudgetsFile
from flopledger.budgets.efficiency import efficiency_alerts, measure
from flopledger.budgets.fx import Rates
from flopledger.budgets.health import health_alerts
from flopledger.budgets.rules import budget_alerts, spend_change_alerts
from flopledger.budgets.spend import by_day, data_bounds, scoped_daily_spend
from flopledger.budgets.status import Status, budget_statuses
from flopledger.warehouse import Warehouse


def as_of(warehouse: Warehouse, now: datetime) -> datetime:
    """Budgets are measured as of the end of the latest billed usage (else now)."""
    _, last = data_bounds(warehouse)
    return last if last is not None else now


def evaluate_budgets(
    warehouse: Warehouse, budgets: BudgetsFile, rates: Rates, now: datetime
) -> list[Status]:
    first, _ = data_bounds(warehouse)
    moment = as_of(warehouse, now)
    statuses: list[Status] = []
    for budget in budgets.budgets:
        spend = by_day(scoped_daily_spend(warehouse, budget.scope))
        statuses += budget_statuses(
            budget, spend, moment, first, budgets.forecast_window_days, rates
        )
    return statuses


def rule_alerts(warehouse: Warehouse, budgets: BudgetsFile, now: datetime) -> list[Alert]:
    """Spend change (on the last complete day), efficiency and health alerts."""
    first, _ = data_bounds(warehouse)
    day = as_of(warehouse, now).date()
    alerts: list[Alert] = []
    for rule in budgets.rules.spend_change:
        spend = scoped_daily_spend(warehouse, rule.scope, rule.group_by)
        alerts += spend_change_alerts(rule, spend, day - timedelta(days=1), first)
    for eff in budgets.rules.efficiency:
        alerts += efficiency_alerts(eff, measure(warehouse, eff, day), day)
    return alerts + health_alerts(warehouse, budgets.rules.health, now)


def raise_alerts(
    warehouse: Warehouse, budgets: BudgetsFile, statuses: list[Status], now: datetime
) -> list[Alert]:
    return budget_alerts(statuses) + rule_alerts(warehouse, budgets, now)
