"""The Commitments page's "Commitment plan" section: how many accelerators to commit to next,
per accelerator type and region (commitment_plan; docs/commitments.md)."""

from __future__ import annotations

from decimal import Decimal

import pandas as pd
import streamlit as st

from flopledger.dashboards import data
from flopledger.dashboards.components import empty_state, money, table, usd_column
from flopledger.figures import figure

TERMS = {"1y": "1 year", "3y": "3 years"}
PLAN_MONEY = (
    "recommended_cost",
    "on_demand_cost",
    "current_cost",
    "recommended_savings_vs_on_demand",
    "recommended_savings_vs_current",
    "demand_fall_savings_vs_on_demand",
    "without_failed_savings_vs_on_demand",
)
PLAN_COUNTS = (
    "recommended_accelerators",
    "demand_fall_accelerators",
    "without_failed_accelerators",
    "idle_committed_accelerators",
)
COLUMNS = {
    "accelerator_type": st.column_config.TextColumn("Accelerator"),
    "region": st.column_config.TextColumn("Region"),
    "committed_now": st.column_config.NumberColumn("Committed today", format="%,.0f"),
    **{k: usd_column(f"{figure(k).name} (USD)") for k in PLAN_MONEY},
    **{k: st.column_config.NumberColumn(figure(k).name) for k in PLAN_COUNTS},
    **{
        k: st.column_config.NumberColumn(figure(k).name, format="percent")
        for k in ("break_even_utilisation", "busy_share")
    },
    "busy_accelerators": st.column_config.NumberColumn("Commit to (busy demand)"),
    "paid_accelerator_hours": st.column_config.NumberColumn("Paid acc-h", format="%,.1f"),
    "queued_accelerator_hours": st.column_config.NumberColumn("Queued acc-h", format="%,.1f"),
    "failed_accelerator_hours": st.column_config.NumberColumn("Failed runs' acc-h", format="%,.1f"),
    "peak_demand_accelerators": st.column_config.NumberColumn("Peak", format="%,.1f"),
    "flag": st.column_config.TextColumn("Look twice"),
}


def render() -> None:
    st.subheader("Commitment plan")
    st.caption(
        "Demand in an hour is the accelerator-hours paid plus the accelerator-hours runs waited "
        "for in the queue. For each accelerator type and region the plan is the whole number of "
        "accelerators L that minimises L × committed price + what demand above L costs on "
        "demand, over every hour of the window: commit to one more only while more than the "
        "break-even share (committed / on-demand price) of the hours need it. The page's "
        "filters do not apply: the plan has its own window."
    )
    if not data.has_table("commitment_plan"):
        empty_state("No commitment plan yet", "Run the pipeline to build `commitment_plan`.")
        return
    term = st.radio("Term", list(TERMS), format_func=TERMS.get, horizontal=True, key="plan_term")
    plan = data.named("commitment_plan_rows", term=term)
    if plan.empty:
        empty_state("No accelerator demand", "No paid or queued accelerator-hours to plan from.")
        return
    first = plan.iloc[0]
    st.caption(
        f"Last {first['days']} days: {plan['first_hour'].min():%Y-%m-%d %H:00} to "
        f"{plan['last_hour'].max():%Y-%m-%d %H:00} UTC; prices from the price book."
    )
    _metrics(plan)
    for flag in plan["flag"].dropna():
        st.warning(flag)
    table(plan, "commitment_plan", COLUMNS)


def _metrics(plan: pd.DataFrame) -> None:
    """The plan's savings over every type and region: exact sums of its rows' figures."""
    cols = st.columns(3)
    for col, key in zip(
        cols, ("recommended_savings_vs_on_demand", "recommended_savings_vs_current"), strict=False
    ):
        col.metric(
            f"{figure(key).name}, every type and region (USD)",
            money(sum(plan[key].dropna(), Decimal(0))),
            help=figure(key).definition,
        )
    key = "idle_committed_accelerators"
    cols[2].metric(
        figure(key).name,
        f"{int(plan[key].dropna().sum())} accelerators",
        help=figure(key).definition,
    )
