"""Idle capacity: unallocated vs allocated idle, by accelerator type, project and hour of day."""

from __future__ import annotations

from decimal import Decimal

import pandas as pd
import streamlit as st

from dashboards import charts, data
from dashboards.components import (
    NO_TELEMETRY,
    empty_state,
    money,
    number,
    percent,
    scope_note,
    table,
    usd_column,
)
from dashboards.filters import Filters

APPLIES = {"project", "accelerator"}


def split(frame: pd.DataFrame) -> pd.DataFrame:
    """dimension_value, kind, usd: unallocated idle, allocated idle and the rest (busy, or
    'allocated' while no telemetry says what was busy)."""
    allocated = frame["effective_usd"] - frame["unallocated_idle_usd"]
    has_busy = frame["allocated_idle_usd"].notna()
    allocated_idle = frame["allocated_idle_usd"].fillna(Decimal(0))
    parts = {
        "Unallocated idle": frame["unallocated_idle_usd"],
        "Allocated idle": allocated_idle.where(has_busy),
        "Allocated, busy": (allocated - allocated_idle).where(has_busy),
        f"Allocated ({NO_TELEMETRY})": allocated.where(~has_busy),
    }
    wide = pd.DataFrame({"dimension_value": frame["dimension_value"], **parts})
    long = wide.melt(id_vars="dimension_value", var_name="kind", value_name="usd")
    return long.dropna(subset=["usd"])


def _headline(f: Filters) -> None:
    idle = data.query("idle_totals", f).iloc[0]
    cols = st.columns(5)
    cols[0].metric("Paid accelerator-hours", number(idle["paid_hours"]))
    cols[1].metric("Unallocated idle hours", number(idle["unallocated_idle_hours"]))
    cols[2].metric("Unallocated idle cost (USD)", money(idle["unallocated_idle_usd"]))
    allocated_idle = (
        money(idle["allocated_idle_usd"]) if idle["rows_with_telemetry"] else NO_TELEMETRY
    )
    cols[3].metric("Allocated idle cost (USD)", allocated_idle)
    share = idle["unallocated_idle_usd"] / idle["effective_usd"] if idle["effective_usd"] else None
    cols[4].metric("Unallocated idle share of cost", percent(share))


def _by(f: Filters, key: str) -> None:
    title = data.IDLE_DIMENSIONS[key]
    frame = data.query("idle_by", f, dimension=key)
    st.altair_chart(charts.idle_split(split(frame), title), width="stretch")
    table(
        frame.rename(columns={"dimension_value": key}),
        f"idle_by_{key}",
        {
            "effective_usd": usd_column("Cost (USD)"),
            "unallocated_idle_usd": usd_column("Unallocated idle (USD)"),
            "allocated_idle_usd": usd_column("Allocated idle (USD)"),
        },
    )


def render(f: Filters) -> None:
    st.title("Idle capacity")
    st.caption(
        "Unallocated idle: paid, held by no run. Allocated idle: held by a run but not busy "
        "(needs telemetry)."
    )
    scope_note(f, APPLIES, "Idle capacity")
    if data.query("idle_totals", f).iloc[0]["paid_hours"] == 0:
        empty_state("No accelerator capacity", "No paid accelerator-hour matches these filters.")
        return
    _headline(f)
    _by(f, "accelerator_type")
    _by(f, "project_id")
    heat = data.query("idle_heatmap", f)
    st.altair_chart(charts.idle_heatmap(heat), width="stretch")
    table(
        heat, "idle_by_hour_of_day", {"unallocated_idle_usd": usd_column("Unallocated idle (USD)")}
    )
