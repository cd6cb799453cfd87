"""Cost per run: a sortable, searchable table and one run's detail."""

from __future__ import annotations

from typing import Any

import streamlit as st

from flopledger.dashboards import charts, data
from flopledger.dashboards.components import (
    count_column,
    definition_link,
    duration,
    empty_state,
    money,
    number,
    one_provider,
    percent_column,
    table,
    telemetry,
    usd_column,
)
from flopledger.dashboards.filters import Filters
from flopledger.figures import figure

ROW_LIMITS = (50, 100, 500, 1000, 5000)
MAX_SEARCH = 200
COLUMNS = {
    "provider": figure("provider").name,
    "effective_cost": usd_column(f"{figure('run_cost').name} (USD)"),
    "list_cost": usd_column(f"{figure('list_cost').name} (USD)"),
    "cost_per_million_tokens": usd_column(f"{figure('cost_per_million_tokens').name} (USD)"),
    "accelerator_hours": st.column_config.NumberColumn("Accelerator-hours", format="%,.2f"),
    "queue_seconds": st.column_config.NumberColumn(figure("queue_seconds").name, format="duration"),
    "tokens_in": count_column("Tokens in"),
    "tokens_out": count_column("Tokens out"),
    "accelerator_count": count_column("Accelerators"),
    "mean_utilisation_pct": percent_column(figure("mean_utilisation_pct").name),
    "mfu_spec_pct": percent_column("MFU vs spec"),
    "energy_kwh": st.column_config.NumberColumn(
        f"{figure('energy_kwh').name} (kWh)", format="%,.2f"
    ),
}


def sort_key(chosen: str | None) -> str:
    """The chosen sort key if whitelisted, else cost."""
    return chosen if chosen in data.SORT_KEYS else "effective_cost"


def needle(text: str | None) -> str:
    """The search text as bound: trimmed, lower case, bounded."""
    return (text or "").strip().lower()[:MAX_SEARCH]


def _controls() -> tuple[str, str, bool, int]:
    cols = st.columns([3, 2, 1, 1])
    search = cols[0].text_input(
        "Search run, job, model or experiment", key="run_search", max_chars=MAX_SEARCH
    )
    key = cols[1].selectbox(
        "Sort by", list(data.SORT_KEYS), format_func=lambda k: data.SORT_KEYS[k], key="run_sort"
    )
    descending = cols[2].toggle("Highest first", value=True, key="run_desc")
    limit = cols[3].selectbox("Rows", ROW_LIMITS, index=1, key="run_limit")
    return needle(search), sort_key(key), bool(descending), int(limit)


def _detail_metrics(run: dict[str, Any]) -> None:
    cols = st.columns(4)
    cols[0].metric(f"{figure('run_cost').name} (USD)", money(run["effective_cost"]))
    cols[1].metric("Accelerator-hours", number(run["accelerator_hours"], digits=2))
    cols[2].metric(
        f"{figure('cost_per_million_tokens').name} (USD)", money(run["cost_per_million_tokens"])
    )
    cols[3].metric(figure("queue_seconds").name, duration(run["queue_seconds"]))
    cols = st.columns(4)
    cols[0].metric(figure("mean_utilisation_pct").name, telemetry(run["mean_utilisation_pct"], "%"))
    cols[1].metric(figure("energy_kwh").name, telemetry(run["energy_kwh"], " kWh", 2))
    cols[2].metric("MFU vs spec", telemetry(run["mfu_spec_pct"], "%"))
    cols[3].metric("MFU vs measured peak", telemetry(run["mfu_measured_pct"], "%"))


def _detail(run_ids: list[str]) -> None:
    st.subheader("Run detail")
    run_id = st.selectbox("Run", run_ids, key="run_pick")
    if run_id is None:
        return
    found = data.query("run_detail", run_id=run_id)
    if found.empty:
        return
    _detail_metrics(found.iloc[0].to_dict())
    hours = data.query("run_hours", run_id=run_id)
    if hours.empty:
        empty_state(
            "No resource-hours",
            "This run held no billed resource-hour (only labelled rows, if any).",
        )
        return
    st.altair_chart(charts.run_hours(hours), width="stretch")
    table(
        hours, f"run_{run_id}_hours", {"run_cost": usd_column(f"{figure('run_cost').name} (USD)")}
    )


def render(f: Filters) -> None:
    st.title("Cost per run")
    search, key, descending, limit = _controls()
    total = data.named("run_totals", f, needle=search, group_by=None).iloc[0]
    st.caption(
        f"{int(total['runs']):,} runs match, costing {money(total['started_run_cost'])} "
        f"(showing up to {limit:,}). Cost is the {definition_link('run_cost')}, the total the "
        f"{definition_link('started_run_cost')}; team is the "
        f"{definition_link('run_owner_team')}; {definition_link('mfu')} is empty for a run "
        "without tokens."
    )
    runs = data.named(
        "top_runs", f, needle=search, sort_key=key, descending=descending, row_limit=limit
    )
    if runs.empty:
        empty_state("No runs", "No run matches these filters and search.")
        return
    table(one_provider(runs, data.providers()), "cost_per_run", COLUMNS)
    _detail(runs["run_id"].tolist())
