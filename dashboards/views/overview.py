"""Overview: spend, the month's forecast, budgets, top teams and runs, idle cost share, trend.

Each figure comes from its one query (figures/__init__.py), which the CLI and the other pages
run too: bill_totals, run_totals, idle_figures, top_runs; the forecast is figures/forecast.py,
the budgets' method. Every label is the figure's name.
"""

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
PROVIDER_MONEY = (
    "billed_cost",
    "credits",
    "effective_cost",
    "started_run_cost",
    "accelerator_cost",
    "unallocated_idle_cost",
)
PROVIDER_COLUMNS = {
    "provider": figure("provider").name,
    **{key: usd_column(f"{figure(key).name} (USD)") for key in PROVIDER_MONEY},
    "runs": count_column("Runs"),
    "paid_accelerator_hours": st.column_config.NumberColumn(
        figure("paid_accelerator_hours").name, format="%,.1f"
    ),
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


def _metric(col, key: str, value: object, help_text: str | None = None) -> None:  # noqa: ANN001
    col.metric(f"{figure(key).name} (USD)", money(value), help=help_text or figure(key).definition)


def _headline(f: Filters) -> None:
    spend = data.named("bill_totals", f, group_by=None).iloc[0]
    runs = data.named("run_totals", f, needle="", group_by=None).iloc[0]
    idle = data.named("idle_figures", f, group_by=None).iloc[0]
    cols = st.columns(5)
    _metric(cols[0], "spend_by_label_team", spend["effective_cost"])
    _metric(cols[1], "credits", spend["credits"])
    cols[2].metric(
        f"{figure('forecast').name}, {f.end:%B} (USD)",
        money(month_forecast(f)),
        help=figure("forecast").definition,
    )
    _metric(
        cols[3],
        "started_run_cost",
        runs["started_run_cost"],
        f"{int(runs['runs']):,} runs, by run-owner team. {figure('started_run_cost').definition}",
    )
    cols[4].metric(
        figure("idle_share_of_cost").name,
        percent(idle["idle_share_of_cost"]),
        help=figure("idle_share_of_cost").definition,
    )
    st.caption(
        f"Spend is by {definition_link('label_team')} (the billing rows' team label; "
        f"budgets use it too); cost of runs is by {definition_link('run_owner_team')}. "
        f"Definitions: {definition_link('effective_cost')}, {definition_link('started_run_cost')}, "
        f"{definition_link('forecast')}, {definition_link('idle_share_of_cost')}."
    )
    scope_note(f, {"provider", "team", "project"}, "Spend")
    scope_note(f, {"provider", "project", "accelerator"}, "Idle capacity")


def by_provider(f: Filters) -> pd.DataFrame:
    """Per provider: its bill (bill_totals), the runs on its resources (run_totals) and its
    accelerator resource-hours (idle_figures), each from the figure's own query."""
    bill = data.named("bill_totals", f, group_by="provider")
    runs = data.named("run_totals", f, needle="", group_by="provider")
    idle = data.named("idle_figures", f, group_by="provider")
    frame = (
        bill[["provider", "billed_cost", "credits", "effective_cost"]]
        .merge(
            runs[["group_value", "runs", "started_run_cost"]].rename(
                columns={"group_value": "provider"}
            ),
            on="provider",
            how="outer",
        )
        .merge(
            idle[
                [
                    "group_value",
                    "paid_accelerator_hours",
                    "accelerator_cost",
                    "unallocated_idle_cost",
                ]
            ].rename(columns={"group_value": "provider"}),
            on="provider",
            how="outer",
        )
    )
    return frame.sort_values(
        ["effective_cost", "provider"], ascending=[False, True], na_position="last"
    )


def _by_provider(f: Filters) -> None:
    """Spend, accelerator resource cost and unallocated idle per provider (several only)."""
    frame = by_provider(f)
    frame = frame.assign(provider=frame["provider"].map(display_value))
    st.subheader("By provider")
    st.caption(
        f"Each cloud's bill in USD ({definition_link('provider')}): its "
        f"{definition_link('effective_cost')} (by label team); the "
        f"{definition_link('started_run_cost')} of the runs on its resources (by run-owner team); "
        f"{definition_link('accelerator_cost')} and {definition_link('unallocated_idle_cost')} "
        "of its accelerator resource-hours. Empty where a provider has none."
    )
    st.altair_chart(
        charts.cost_bars(frame.dropna(subset=["effective_cost"]), "provider", "Provider",
                         "Effective cost by provider"),
        width="stretch",
    )  # fmt: skip
    table(frame, "spend_by_provider", PROVIDER_COLUMNS)


def _top_teams(f: Filters) -> None:
    frame = data.named("run_totals", f, needle="", group_by="team").head(TOP_N)
    frame = frame.assign(team=frame["group_value"].map(display_value))
    title = f"Top teams by {figure('started_run_cost').name.lower()}"
    st.altair_chart(
        charts.cost_bars(frame, "team", "Run-owner team", title, value="started_run_cost"),
        width="stretch",
    )


def _top_runs(f: Filters, providers: list[str]) -> None:
    frame = data.named(
        "top_runs", f, needle="", sort_key="effective_cost", descending=True, row_limit=TOP_N
    )
    st.markdown("**Top runs by cost**")
    shown = frame[
        ["run_id", "provider", "team", "workload_class", "accelerator_type", "effective_cost"]
    ]
    table(
        one_provider(shown, providers),
        "top_runs",
        {"effective_cost": usd_column(f"{figure('run_cost').name} (USD)")},
    )


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
        one_provider(trend, providers),
        "spend_daily",
        {"effective_cost": usd_column(f"{figure('effective_cost').name} (USD)")},
    )
