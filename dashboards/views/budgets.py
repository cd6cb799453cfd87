"""Budgets and alerts (budget_status and alerts; empty states until they hold rows)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from flopledger.dashboards import charts, data
from flopledger.dashboards.components import (
    definition_link,
    empty_state,
    percent_column,
    table,
    usd_column,
)
from flopledger.figures import figure

NO_BUDGETS = (
    "No budgets yet",
    "No budget is configured: add a `budgets:` file to flopledger.yaml and run the pipeline.",
)
NO_ALERTS = (
    "No alerts yet",
    "No alert has been raised (or this warehouse has no alerts table yet).",
)
MEASURES = {key: figure(key).name for key in ("spend_to_date", "forecast", "amount_usd")}
COLUMNS = {
    **{key: usd_column(f"{label} (USD)") for key, label in MEASURES.items()},
    **{key: percent_column(figure(key).name) for key in ("percent_used", "forecast_percent")},
}


def budget_long(frame: pd.DataFrame) -> pd.DataFrame:
    """budget, measure, usd: spend to date, forecast and amount of each current budget period."""
    current = frame[frame["is_current"]]
    long = current[["budget", *MEASURES]].melt(
        id_vars="budget", var_name="measure", value_name="usd"
    )
    return long.assign(measure=long["measure"].map(MEASURES))


def _budgets() -> pd.DataFrame | None:
    if not data.has_table("budget_status"):
        return None
    frame = data.query("budget_status")
    return None if frame.empty else frame


def show_budgets(current_only: bool = False) -> None:
    """Spend and forecast against each current budget, and the budget_status table."""
    frame = _budgets()
    if frame is None:
        empty_state(*NO_BUDGETS)
        return
    st.altair_chart(charts.budget_bars(budget_long(frame)), width="stretch")
    shown = frame[frame["is_current"]] if current_only else frame
    table(shown, "budget_status_current" if current_only else "budget_status", COLUMNS)


def show_alerts() -> None:
    frame = data.query("alerts") if data.has_table("alerts") else pd.DataFrame()
    if frame.empty:
        empty_state(*NO_ALERTS)
        return
    st.metric("Alerts", f"{len(frame):,}")
    st.metric(
        "Not yet delivered",
        f"{int(frame['notified_at'].isna().sum()):,}",
        help="As of the last marts run, which copies the notifier's deliveries in; "
        "`flopledger alerts` says what is open now.",
    )
    table(frame, "alerts")


def render(_filters: object) -> None:
    st.title("Budgets and alerts")
    st.caption(
        "Budgets carry their own scope and period; the sidebar filters do not apply here. A "
        f"budget's team is the {definition_link('label_team')} (billing rows) unless its scope "
        f"names a workload class, then the {definition_link('run_owner_team')}."
    )
    st.subheader("Budgets")
    show_budgets()
    st.subheader("Alerts")
    show_alerts()
