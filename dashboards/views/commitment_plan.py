"""The Commitments page's "Commitment plan" section: how many accelerators to commit to next,
per accelerator type and region (commitment_plan; docs/commitments.md)."""

from __future__ import annotations

from decimal import Decimal

import pandas as pd
import streamlit as st

from flopledger.dashboards import data
from flopledger.dashboards.components import empty_state, money, table, usd_column

TERMS = {"1y": "1 year", "3y": "3 years"}


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
    plan = data.query("commitment_plan", term=term)
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
    table(
        plan,
        "commitment_plan",
        {
            "accelerator_type": st.column_config.TextColumn("Accelerator"),
            "region": st.column_config.TextColumn("Region"),
            "committed_now": st.column_config.NumberColumn("Committed today", format="%,.0f"),
            "recommended_accelerators": st.column_config.NumberColumn("Commit to"),
            "break_even_utilisation": st.column_config.NumberColumn(
                "Break-even utilisation", format="percent"
            ),
            "busy_share": st.column_config.NumberColumn("Busy share", format="percent"),
            "busy_accelerators": st.column_config.NumberColumn("Commit to (busy demand)"),
            "idle_committed_accelerators": st.column_config.NumberColumn(
                "Would sit allocated but idle"
            ),
            "plan_cost_usd": usd_column("Cost of the plan (USD)"),
            "on_demand_cost_usd": usd_column("All on demand (USD)"),
            "current_cost_usd": usd_column("With today's commitments (USD)"),
            "savings_vs_on_demand_usd": usd_column("Saves vs on demand (USD)"),
            "savings_vs_current_usd": usd_column("Saves vs today (USD)"),
            "demand_fall_accelerators": st.column_config.NumberColumn("Commit to if demand −20%"),
            "demand_fall_savings_usd": usd_column("Saves if demand −20% (USD)"),
            "without_failed_accelerators": st.column_config.NumberColumn(
                "Commit to without failed runs"
            ),
            "without_failed_savings_usd": usd_column("Saves without failed runs (USD)"),
            "paid_accelerator_hours": st.column_config.NumberColumn("Paid acc-h", format="%,.1f"),
            "queued_accelerator_hours": st.column_config.NumberColumn(
                "Queued acc-h", format="%,.1f"
            ),
            "failed_accelerator_hours": st.column_config.NumberColumn(
                "Failed runs' acc-h", format="%,.1f"
            ),
            "peak_demand_accelerators": st.column_config.NumberColumn("Peak", format="%,.1f"),
            "flag": st.column_config.TextColumn("Look twice"),
        },
    )


def _metrics(plan: pd.DataFrame) -> None:
    cols = st.columns(3)
    planned = plan["savings_vs_on_demand_usd"].dropna()
    current = plan["savings_vs_current_usd"].dropna()
    idle = plan["idle_committed_accelerators"].dropna()
    cols[0].metric(
        "Plan saves vs on demand (USD)",
        money(sum(planned, Decimal(0))),
        help="All types and regions: cost of the window's demand all on demand - with the plan.",
    )
    cols[1].metric(
        "Plan saves vs today (USD)",
        money(sum(current, Decimal(0))),
        help="With today's commitments (at the term's price) - with the plan.",
    )
    cols[2].metric(
        "Planned but allocated idle",
        f"{int(idle.sum())} accelerators",
        help="Accelerators the plan commits to that telemetry shows held but not busy.",
    )
