"""The accelerator portfolio: per workload class, where it ran (TPU, GPU or a managed
provider), at what USD per million tokens, busy share and USD per delivered PFLOP-hour; and
one model's USD per million tokens on each family it ran on, side by side."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from flopledger.dashboards import charts, data
from flopledger.dashboards.components import (
    count_column,
    definition_link,
    empty_state,
    percent_column,
    scope_note,
    table,
    usd_column,
)
from flopledger.dashboards.filters import Filters

NO_PORTFOLIO = (
    "No portfolio yet",
    "The accelerator_portfolio mart is built from cost_per_run: run the pipeline "
    "(`flopledger run`) on a config with jobs and billing.",
)


def render(f: Filters) -> None:
    st.title("Portfolio")
    st.caption(
        "Where each workload class ran and what it cost for the work delivered, by the numbers "
        "(measured figures only: no estimate of what a run would have cost elsewhere). Effective "
        "cost includes the idle time of accelerators the runs held (allocated idle); the idle "
        "capacity no run held (unallocated idle) is the family's, shown as its share."
    )
    if not data.has_table("accelerator_portfolio"):
        empty_state(*NO_PORTFOLIO)
        return
    scope_note(f, {"workload", "accelerator"}, "The portfolio")
    portfolio = data.query("portfolio", f)
    if portfolio.empty:
        empty_state("Nothing in these filters", "No run or managed request matches them.")
        return
    _classes(portfolio)
    _models(f)


def _classes(portfolio: pd.DataFrame) -> None:
    latest = portfolio[portfolio["month"] == portfolio["month"].max()]
    if latest["usd_per_million_tokens"].notna().any():
        st.altair_chart(charts.portfolio_bars(latest), width="stretch")
        st.caption(
            f"Month of {latest['month'].iloc[0]:%B %Y}. Shorter is cheaper for the tokens "
            "delivered; hover a bar for its busy share and USD per delivered PFLOP-hour."
        )
    st.subheader("Per workload class and family")
    st.caption(
        f"USD per delivered PFLOP-hour = effective cost ÷ (busy accelerator-hours × the "
        f"family's best probe-measured bf16 TFLOP/s ÷ 1000); empty where no probe measured the "
        f"family or telemetry is missing. Mean {definition_link('mfu')} is against the "
        f"measured peak."
    )
    table(
        portfolio,
        "accelerator_portfolio",
        {
            "runs_or_requests": count_column("Runs or requests"),
            "cost_usd": usd_column("Cost (USD)"),
            "paid_accelerator_hours": st.column_config.NumberColumn(
                "Paid accelerator-hours", format="%,.1f"
            ),
            "busy_pct": percent_column("Busy"),
            "usd_per_accelerator_hour": usd_column("USD per accelerator-hour"),
            "allocated_idle_share": st.column_config.NumberColumn(
                "Allocated idle", format="percent"
            ),
            "unallocated_idle_share": st.column_config.NumberColumn(
                "Family's unallocated idle", format="percent"
            ),
            "usd_per_pflop_hour": usd_column("USD per delivered PFLOP-hour"),
            "mean_mfu_measured_pct": percent_column("Mean MFU (measured peak)"),
            "tokens": count_column("Tokens"),
            "usd_per_million_tokens": usd_column("USD per M tokens"),
        },
    )


def _models(f: Filters) -> None:
    st.subheader("One model on several families, side by side")
    models = data.query(
        "portfolio_models", start_day=f.start, end_day=f.end, classes=list(f.workload)
    )
    if models.empty:
        empty_state(
            "No model ran on two families",
            "A model appears here when, in one month and workload class, it ran on two "
            "accelerator types, or on ours and through a provider.",
        )
        return
    table(
        models,
        "model_portfolio",
        {
            "tokens": count_column("Tokens"),
            "cost_usd": usd_column("Cost (USD)"),
            "usd_per_million_tokens": usd_column("USD per M tokens"),
            "times_cheapest": st.column_config.NumberColumn("× the cheapest", format="%.2f×"),
            "cheapest": st.column_config.CheckboxColumn("Cheapest"),
        },
    )
