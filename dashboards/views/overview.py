"""Overview: spend to date, projection, budgets, top teams and runs, idle cost share, trend."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pandas as pd
import streamlit as st

from flopledger.dashboards import charts, data
from flopledger.dashboards.components import (
    count_column,
    definition_link,
    display_value,
    money,
    one_provider,
    percent,
    scope_note,
    table,
    usd_column,
)
from flopledger.dashboards.filters import Filters
from flopledger.dashboards.views.budgets import show_budgets
from flopledger.figures import figure
from flopledger.figures.forecast import DEFAULT_WINDOW_DAYS, Month, forecast_period

TOP_N = 10
PROVIDER_COLUMNS = {
    "provider": "Provider",
    "billed_usd": usd_column("Billed cost (USD)"),
    "credits_usd": usd_column("Credits (USD)"),
    "effective_usd": usd_column("Spend (USD)"),
    "runs": count_column("Runs"),
    "run_cost_usd": usd_column("Cost of runs (USD)"),
    "paid_hours": st.column_config.NumberColumn("Paid accelerator-hours", format="%,.1f"),
    "accelerator_usd": usd_column("Accelerator resource cost (USD)"),
    "unallocated_idle_usd": usd_column("Unallocated idle (USD)"),
}


def month_forecast(f: Filters) -> Decimal | None:
    """The Forecast figure for the calendar month of the range's last day, by the budgets'
    method (figures/forecast.py) over the filters' daily spend, as of the day after the range
    (its last day complete); None without spend."""
    as_of, month = f.end + timedelta(days=1), Month.of(f.end)
    window = DEFAULT_WINDOW_DAYS
    frame = data.query("spend_by_day", f, from_day=min(month.start, as_of - timedelta(days=window)))
    if frame.empty:
        return None
    spend = {
        pd.Timestamp(d).date(): v
        for d, v in zip(frame["day"], frame["effective_cost"], strict=True)
    }
    first = pd.Timestamp(frame["first_day"].iloc[0]).date()
    return forecast_period(spend, month, as_of, window, first).forecast


def _headline(f: Filters) -> None:
    spend = data.query("spend_totals", f).iloc[0]
    runs = data.query("run_totals", f).iloc[0]
    idle = data.named("idle_figures", f, group_by=None).iloc[0]
    month_end = month_forecast(f)
    cols = st.columns(5)
    cols[0].metric(
        "Spend to date (USD)",
        money(spend["effective_usd"]),
        help="Effective cost (billed + credits) in the date range, of the billing rows whose "
        "team label is chosen (label team), from spend_daily.",
    )
    cols[1].metric("Credits (USD)", money(spend["credits_usd"]))
    cols[2].metric(
        f"{figure('forecast').name}, {f.end:%B} (USD)",
        money(month_end),
        help=figure("forecast").definition,
    )
    cols[3].metric(
        "Cost of runs (USD)",
        money(runs["effective_usd"]),
        help=f"{int(runs['runs']):,} runs, by run-owner team",
    )
    cols[4].metric(
        figure("idle_share_of_cost").name,
        percent(idle["idle_share_of_cost"]),
        help=figure("idle_share_of_cost").definition,
    )
    st.caption(
        f"Spend to date is by {definition_link('label_team')} (the billing rows' team label; "
        f"budgets use it too); cost of runs is by {definition_link('run_owner_team')}. "
        f"Definitions: {definition_link('effective_cost')}, {definition_link('run_cost')}, "
        f"{definition_link('idle_share_of_cost')}."
    )
    scope_note(f, {"provider", "team", "project"}, "Spend")
    scope_note(f, {"provider", "project", "accelerator"}, "Idle capacity")


def _by_provider(f: Filters) -> None:
    """Spend, accelerator resource cost and unallocated idle per provider (several only)."""
    frame = data.query("provider_totals", f)
    frame = frame.assign(provider=frame["provider"].map(display_value))
    st.subheader("By provider")
    st.caption(
        f"Each cloud's bill in USD ({definition_link('provider')}): spend is the "
        f"{definition_link('effective_cost')} of its rows (by label team); the "
        f"{definition_link('run_cost')} is of the runs on its resources (by run-owner team); "
        f"accelerator resource cost and {definition_link('unallocated_idle_cost')} are of its "
        "accelerator resource-hours. Empty where a provider has none."
    )
    st.altair_chart(
        charts.cost_bars(frame.dropna(subset=["effective_usd"]), "provider", "Provider",
                         "Spend by provider"),
        width="stretch",
    )  # fmt: skip
    table(frame, "spend_by_provider", PROVIDER_COLUMNS)


def _top_teams(f: Filters) -> None:
    frame = data.query("top_teams", f, row_limit=TOP_N)
    frame = frame.assign(team=frame["team"].map(display_value))
    st.altair_chart(
        charts.cost_bars(frame, "team", "Team", "Top teams by run cost"), width="stretch"
    )


def _top_runs(f: Filters, providers: list[str]) -> None:
    frame = data.query(
        "runs_table", f, needle="", sort_key="effective_cost", descending=True, row_limit=TOP_N
    )
    st.markdown("**Top runs by cost**")
    shown = frame[
        ["run_id", "provider", "team", "workload_class", "accelerator_type", "effective_usd"]
    ]
    table(one_provider(shown, providers), "top_runs", {"effective_usd": usd_column("Cost (USD)")})


def render(f: Filters) -> None:
    st.title("Overview")
    providers = data.providers()
    _headline(f)
    if len(providers) > 1:
        _by_provider(f)
    st.subheader("Budgets")
    st.caption(
        "Budgets carry their own scope and period (each says which team it means); the sidebar "
        "filters do not apply to them."
    )
    show_budgets(current_only=True)
    left, right = st.columns(2)
    with left:
        _top_teams(f)
    with right:
        _top_runs(f, providers)
    trend = data.query("spend_trend", f)
    st.altair_chart(charts.spend_trend(trend), width="stretch")
    table(
        one_provider(trend, providers), "spend_daily", {"effective_usd": usd_column("Cost (USD)")}
    )
