"""Thin assets: load budgets.yaml, compute budget_status, raise alerts (logic in budgets/).

They sit in the `marts` group so that the marts job (and `flopledger run`) builds them after
the marts they read. The run's clock is the `flopledger/now` tag a schedule sets from its
scheduled execution time, else the resource's clock.
"""

import json
from datetime import datetime

import dagster as dg
import pyarrow as pa

from flopledger.budgets.alerts import store_alerts
from flopledger.budgets.budget_file import BudgetsFile, load_budgets
from flopledger.budgets.delivery_store import DeliveryStore
from flopledger.budgets.evaluate import evaluate_budgets, raise_alerts
from flopledger.budgets.fx import load_fx_rates
from flopledger.budgets.notify import record_deliveries
from flopledger.budgets.status import from_rows, to_arrow
from flopledger.models import query_sql
from flopledger.pipelines.resources import Flopledger
from flopledger.pipelines.run_tags import run_now

SPEND_MARTS = ["billing_line_items", "run_allocation", "run_direct_costs", "jobs", "spend_daily"]


def _budget_rows(budgets: BudgetsFile, now: datetime) -> pa.Table:
    rows = [
        {
            "budget": b.name,
            "scope": b.scope.describe(),
            "scope_json": b.scope.model_dump_json(),
            "basis": b.scope.basis,
            "period": b.period,
            "week_start": b.week_start if b.period == "week" else None,
            "amount": b.amount,
            "currency": b.currency,
            "thresholds": b.thresholds,
            "forecast_alerts": b.forecast_alerts,
            "channels": b.channels,
            "loaded_at": now,
        }
        for b in budgets.budgets
    ]
    schema = pa.schema(
        [
            ("budget", pa.string()),
            ("scope", pa.string()),
            ("scope_json", pa.string()),
            ("basis", pa.string()),
            ("period", pa.string()),
            ("week_start", pa.string()),
            ("amount", pa.decimal128(38, 9)),
            ("currency", pa.string()),
            ("thresholds", pa.list_(pa.float64())),
            ("forecast_alerts", pa.bool_()),
            ("channels", pa.list_(pa.string())),
            ("loaded_at", pa.timestamp("us")),
        ]
    )
    return pa.Table.from_pylist(rows, schema=schema)


@dg.asset(
    name="budgets", group_name="marts", kinds={"duckdb"}, description="Budgets from budgets.yaml."
)
def budgets_asset(
    context: dg.AssetExecutionContext, flopledger: Flopledger
) -> dg.MaterializeResult:
    budgets = load_budgets(flopledger.config().budgets)
    rows = flopledger.warehouse().replace_all(
        "budgets", _budget_rows(budgets, run_now(context, flopledger))
    )
    return dg.MaterializeResult(metadata={"budgets": dg.MetadataValue.int(rows)})


@dg.asset(
    name="budget_status",
    group_name="marts",
    deps=["budgets", *SPEND_MARTS],
    kinds={"duckdb"},
    description="Per budget and period: spend to date, forecast, percent used, thresholds crossed.",
)
def budget_status(
    context: dg.AssetExecutionContext, flopledger: Flopledger
) -> dg.MaterializeResult:
    config, warehouse = flopledger.config(), flopledger.warehouse()
    statuses = evaluate_budgets(
        warehouse,
        load_budgets(config.budgets),
        load_fx_rates(config.fx_rates),
        run_now(context, flopledger),
    )
    warehouse.replace_all("budget_status", to_arrow(statuses))
    current = [s for s in statuses if s.is_current]
    return dg.MaterializeResult(
        metadata={
            "rows": dg.MetadataValue.int(len(statuses)),
            "current": dg.MetadataValue.json({s.budget: round(s.percent_used, 1) for s in current}),
        }
    )


@dg.asset(
    name="alerts",
    group_name="marts",
    deps=["budget_status", "idle_capacity_daily", "cost_per_run"],
    kinds={"duckdb"},
    description="Alerts raised once under stable ids; never rebuilt.",
)
def alerts_asset(context: dg.AssetExecutionContext, flopledger: Flopledger) -> dg.MaterializeResult:
    config, warehouse, now = (
        flopledger.config(),
        flopledger.warehouse(),
        run_now(context, flopledger),
    )
    statuses = from_rows(warehouse.query(query_sql("budget_status_rows")).to_pylist())
    raised = raise_alerts(warehouse, load_budgets(config.budgets), statuses, now)
    new = store_alerts(warehouse, raised, now)
    # what the notifier delivered since the last run, from its store into the table
    copied = record_deliveries(warehouse, DeliveryStore.of(config))
    context.log.info(f"alerts: {len(raised)} raised, {new} new, {copied} delivery records copied")
    return dg.MaterializeResult(
        metadata={
            "alerts_raised": dg.MetadataValue.int(len(raised)),
            "alerts_new": dg.MetadataValue.int(new),
            "deliveries_recorded": dg.MetadataValue.int(copied),
            "ids": dg.MetadataValue.text(json.dumps(sorted(a.alert_id for a in raised))[:2000]),
        }
    )


ASSETS = [budgets_asset, budget_status, alerts_asset]
