"""Cost explorer: group the effective cost by any dimension, filter by any, day / week / month,
this period against the previous one, and cumulative spend against a budget and its forecast.

Its facts are cost_explorer_rows (every billing row split into the runs it was allocated to and
what no run was), so every grouping adds up to the effective cost. The dimension, the grain and
the label key are checked against the whitelists below, then bound as parameters and matched
against fixed CASEs in the SQL; filter values are bound as lists (filters.ExplorerFilters).
Nothing is formatted into SQL.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pandas as pd
import streamlit as st

from flopledger.dashboards import charts, data
from flopledger.dashboards.components import (
    definition_link,
    display_value,
    empty_state,
    money,
    percent,
    table,
    usd_column,
)
from flopledger.dashboards.filters import EXPLORER_FILTERED, ExplorerFilters, Filters
from flopledger.figures import figure

DIMENSIONS = {
    "provider": "Provider",
    "billing_account_id": "Billing account",
    "project_id": "Project",
    "service_name": "Service",
    "sku_description": "SKU",
    "label": "Label (choose a key)",
    "credit_type": "Credit type",
    "pricing_model": "Pricing model",
    "run_team": "Run-owner team",
    "label_team": "Label team",
    "run_id": "Run",
    "accelerator_type": "Accelerator type",
    "workload_class": "Workload class",
    "cost_part": "Cost part (runs, unallocated idle, unused commitment, unused reservation, shared)",
}
# The dimensions the explorer's filters can narrow (credit type: rows carrying such a credit).
FILTERED = EXPLORER_FILTERED
RUN_DIMENSIONS = ("run_team", "run_id", "workload_class", "cost_part")
GRAINS = {"day": "Daily", "week": "Weekly", "month": "Monthly"}


def previous_period(start: date, end: date) -> tuple[date, date]:
    """The period of the same length just before [start, end]."""
    days = (end - start).days + 1
    return start - timedelta(days=days), start - timedelta(days=1)


def checked(dimension: str, grain: str) -> tuple[str, str]:
    """Refuse a dimension or grain outside the whitelists (a URL or widget cannot add one)."""
    if dimension not in DIMENSIONS or grain not in GRAINS:
        raise ValueError(f"not an explorer grouping: {dimension!r}, {grain!r}")
    return dimension, grain


def _options() -> dict[str, list[str]]:
    frame = data.query("explorer_options")
    return {
        dim: frame.loc[frame["dimension"] == dim, "value"].tolist()
        for dim in (*FILTERED, "label_key")
    }


def _seed_from_url() -> None:
    """A shared link's grouping and period (`?group=sku_description&grain=week`), when known."""
    for key, state, allowed in (("group", "x_dimension", DIMENSIONS), ("grain", "x_grain", GRAINS)):
        value = st.query_params.get(key)
        if state not in st.session_state and value in allowed:
            st.session_state[state] = value


def _keep_in_url(dimension: str, grain: str) -> None:
    """A chosen grouping and period go into the URL, so a view can be shared; the defaults stay
    out of it, so the default view keeps a clean URL."""
    for key, value, default in (
        ("group", dimension, next(iter(DIMENSIONS))),
        ("grain", grain, next(iter(GRAINS))),
    ):
        if value == default:
            st.query_params.pop(key, None)
        else:
            st.query_params[key] = value


def _controls(opts: dict[str, list[str]]) -> tuple[str, str, ExplorerFilters]:
    _seed_from_url()
    left, mid, right = st.columns([2, 2, 3])
    dimension = left.selectbox(
        "Group by", list(DIMENSIONS), format_func=DIMENSIONS.__getitem__, key="x_dimension"
    )
    keys = opts["label_key"] or ["team"]
    label_key = mid.selectbox(
        "Label key", keys, index=keys.index("team") if "team" in keys else 0, key="x_label_key"
    )
    grain = right.radio(
        "Period", list(GRAINS), format_func=GRAINS.__getitem__, horizontal=True, key="x_grain"
    )
    chosen: dict[str, list[str]] = {}
    with st.expander("Filters (the explorer's own; the sidebar's dates apply)"):
        cols = st.columns(3)
        for i, dim in enumerate(FILTERED):
            chosen[dim] = cols[i % 3].multiselect(
                DIMENSIONS[dim],
                opts[dim],
                format_func=display_value,
                key=f"x_f_{dim}",
                placeholder="All",
            )
        values = data.query("explorer_label_values", label_key=label_key)["value"].tolist()
        label_values = st.multiselect(
            f"Label {label_key}", values, format_func=display_value, key="x_f_label",
            placeholder="All",
        )  # fmt: skip
    return dimension, grain, ExplorerFilters.of(chosen, label_key, label_values)


def _shown(frame: pd.DataFrame, dimension: str) -> pd.DataFrame:
    """Groups in words: a part no run was allocated has no run, team or class: '(no run)'."""
    no_run = dimension in {"run_team", "run_id", "workload_class"}

    def shown(value: Any) -> str:
        return "(no run)" if no_run and value == "(none)" else display_value(value)

    return frame.assign(group_value=frame["group_value"].map(shown))


def _compared(x: ExplorerFilters, f: Filters, dimension: str | None, grain: str) -> pd.DataFrame:
    """explorer_compare: per group of `dimension`, or (None) one row for every group together."""
    prev_start, prev_end = previous_period(f.start, f.end)
    return data.query(
        "explorer_compare",
        explorer=x,
        dimension=dimension,
        grain=grain,
        start_day=f.start,
        end_day=f.end,
        prev_start=prev_start,
        prev_end=prev_end,
    )


def _comparison(x: ExplorerFilters, f: Filters, dimension: str, grain: str) -> None:
    prev_start, prev_end = previous_period(f.start, f.end)
    total = _compared(x, f, None, grain).iloc[0]
    eff = figure("effective_cost").name
    cols = st.columns(3)
    cols[0].metric(f"{eff}, {f.start} to {f.end}", money(total["effective_cost"]))
    cols[1].metric(f"{eff}, {prev_start} to {prev_end}", money(total["previous_effective_cost"]))
    share = total["change_share"]
    cols[2].metric(
        f"{figure('change').name} (USD)",
        money(total["change"]),
        delta=None if pd.isna(share) else percent(share),
        help=f"{figure('change_share').name}: {figure('change_share').definition}",
    )
    st.markdown("**This period against the previous one**")
    frame = _compared(x, f, dimension, grain)
    table(
        _shown(frame, dimension).rename(columns={"group_value": DIMENSIONS[dimension]}),
        f"explorer_compare_{dimension}",
        {
            "effective_cost": usd_column(f"{eff}, this period (USD)"),
            "previous_effective_cost": usd_column(f"{eff}, the period before (USD)"),
            "change": usd_column(f"{figure('change').name} (USD)"),
            "change_share": st.column_config.NumberColumn(
                figure("change_share").name, format="percent"
            ),
        },
    )


def _credit_types(x: ExplorerFilters, f: Filters) -> None:
    if any(values for d, values in x.chosen if d in RUN_DIMENSIONS):
        st.caption("A credit is on a whole billing row: the run-owner filters do not apply here.")
    frame = data.query(
        "explorer_credit_types",
        explorer=x.without(RUN_DIMENSIONS),
        start_day=f.start,
        end_day=f.end,
    )
    eff = figure("effective_cost").name
    st.metric(f"{eff}, {f.start} to {f.end}", money(frame["effective_cost"].sum()))
    st.caption(
        "Billed cost and each credit type of the rows of Google's billing export, by their usage "
        "day; they add up to those rows' effective cost. Another cloud's FOCUS credits are rows of "
        "their own (credit type Credit in the explorer's filters)."
    )
    st.altair_chart(
        charts.cost_bars(frame, "group_value", "Credit type", "Effective cost by credit type"),
        width="stretch",
    )
    table(frame, "explorer_credit_types", {"effective_cost": usd_column(f"{eff} (USD)")})


def _cumulative(x: ExplorerFilters, f: Filters) -> None:
    st.subheader("Cumulative spend against a budget")
    frame = data.query("explorer_cumulative", explorer=x, start_day=f.start, end_day=f.end)
    budgets = data.query("budget_status") if data.has_table("budget_status") else pd.DataFrame()
    current = budgets[budgets["is_current"]] if not budgets.empty else budgets
    budget = None
    if not current.empty:
        name = st.selectbox("Budget", current["budget"].tolist(), key="x_budget")
        budget = current[current["budget"] == name].iloc[0]
        st.caption(
            f"Budget {name} ({budget['period_key']}) measures its own scope ({budget['scope']}), "
            f"not the explorer's filters: {money(budget['spend_to_date'])} spent of "
            f"{money(budget['amount_usd'])}, forecast {money(budget['forecast'])} by "
            f"{pd.Timestamp(budget['period_end']).date()}."
        )
    else:
        empty_state("No budgets yet", "No budget is configured, so no budget line is drawn.")
    st.altair_chart(charts.cumulative_against_budget(frame, budget), width="stretch")
    table(
        frame,
        "explorer_cumulative",
        {
            key: usd_column(f"{figure(key).name} (USD)")
            for key in ("effective_cost", "cumulative_effective_cost")
        },
    )


def render(f: Filters) -> None:
    st.title("Cost explorer")
    st.caption(
        f"Effective cost ({definition_link('effective_cost')}) grouped and filtered by any "
        "dimension; every grouping adds up to the same total. Dates come from the sidebar; the "
        "sidebar's provider, team, project, workload and accelerator filters do not apply here: "
        "use the "
        f"explorer's filters, which say which team they mean ({definition_link('label_team')}, "
        f"{definition_link('run_owner_team')})."
    )
    opts = _options()
    if not any(opts.values()):
        empty_state("No cost yet", "cost_explorer_rows is empty: run the pipeline first.")
        return
    dimension, grain, x = _controls(opts)
    dimension, grain = checked(dimension, grain)
    _keep_in_url(dimension, grain)
    if dimension == "credit_type":
        _credit_types(x, f)
        _cumulative(x, f)
        return
    series = data.query(
        "explorer_series", explorer=x, dimension=dimension, grain=grain,
        start_day=f.start, end_day=f.end,
    )  # fmt: skip
    if series.empty:
        empty_state("No cost", "No cost matches these filters in this date range.")
        return
    title = DIMENSIONS[dimension] if dimension != "label" else f"Label {x.label_key}"
    st.altair_chart(
        charts.explorer_bars(_shown(series, dimension), title, GRAINS[grain]), width="stretch"
    )
    table(
        _shown(series, dimension).rename(columns={"group_value": title}),
        f"explorer_{dimension}_{grain}",
        {
            "period": st.column_config.DateColumn("Period (UTC)"),
            "effective_cost": usd_column(f"{figure('effective_cost').name} (USD)"),
        },
    )
    _comparison(x, f, dimension, grain)
    _cumulative(x, f)
