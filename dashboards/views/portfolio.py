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
from flopledger.figures import figure

MONEY = (
    "effective_cost",
    "effective_cost_per_accelerator_hour",
    "cost_per_delivered_pflop_hour",
    "cost_per_million_tokens",
)
SHARES = ("allocated_idle_share_of_run_cost", "family_unallocated_idle_share_of_cost")
COLUMNS = {
    "runs": count_column("Runs"),
    "requests": count_column("Managed requests"),
    **{k: usd_column(f"{figure(k).name} (USD)") for k in MONEY},
    "paid_accelerator_hours": st.column_config.NumberColumn(
        figure("paid_accelerator_hours").name, format="%,.1f"
    ),
    **{k: percent_column(figure(k).name) for k in ("busy_pct", "mean_mfu_measured_pct")},
    **{k: st.column_config.NumberColumn(figure(k).name, format="percent") for k in SHARES},
    "times_cheapest": st.column_config.NumberColumn(figure("times_cheapest").name, format="%.2f×"),
    "tokens": count_column("Tokens"),
}
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
    portfolio = data.named("portfolio", f, latest_only=False, per_class_limit=None)
    if portfolio.empty:
        empty_state("Nothing in these filters", "No run or managed request matches them.")
        return
    _classes(portfolio)
    _models(f)


def _classes(portfolio: pd.DataFrame) -> None:
    latest = portfolio[portfolio["month"] == portfolio["month"].max()]
    if latest["cost_per_million_tokens"].notna().any():
        st.altair_chart(charts.portfolio_bars(latest), width="stretch")
        st.caption(
            f"Month of {latest['month'].iloc[0]:%B %Y}. Shorter is cheaper for the tokens "
            "delivered; hover a bar for its busy share and USD per delivered PFLOP-hour."
        )
    st.subheader("Per workload class and family")
    st.caption(
        f"{figure('cost_per_delivered_pflop_hour').name} = effective cost ÷ (busy "
        f"accelerator-hours × the family's best probe-measured bf16 TFLOP/s ÷ 1000); empty where "
        f"no probe measured the family or telemetry is missing. Mean {definition_link('mfu')} is against the "
        f"measured peak."
    )
    shown = portfolio.assign(
        tokens=portfolio["tokens"].map(lambda v: None if pd.isna(v) else int(v))
    )
    table(shown.drop(columns=["rank_", "families"]), "accelerator_portfolio", COLUMNS)


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
            "effective_cost": usd_column(f"{figure('effective_cost').name} (USD)"),
            "cost_per_million_tokens": usd_column(
                f"{figure('cost_per_million_tokens').name} (USD)"
            ),
            "times_cheapest": st.column_config.NumberColumn(
                figure("times_cheapest").name, format="%.2f×"
            ),
            "cheapest": st.column_config.CheckboxColumn("Cheapest"),
        },
    )
