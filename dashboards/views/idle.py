"""Idle capacity: unallocated vs allocated idle, by provider (when several), accelerator type,
project and hour of day."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pandas as pd
import streamlit as st

from flopledger.dashboards import charts, data
from flopledger.dashboards.components import (
    NO_TELEMETRY,
    definition_link,
    empty_state,
    money,
    number,
    percent,
    scope_note,
    table,
    usd_column,
)
from flopledger.dashboards.filters import Filters
from flopledger.figures import figure

APPLIES = {"provider", "project", "accelerator"}
SHARES = ("unallocated_idle_share_of_cost", "idle_share_of_cost", "unallocated_idle_share_of_hours")
HOURS = ("paid_accelerator_hours", "unallocated_idle_hours")


def idle(f: Filters, group_by: str | None = None) -> pd.DataFrame:
    """idle_figures in the filters (the query the CLI, the Overview, the idle-share alert and the
    month report read too): one row, or one per provider, accelerator type or project."""
    return data.named("idle_figures", f, group_by=group_by)


def split(frame: pd.DataFrame) -> pd.DataFrame:
    """dimension_value, kind, usd: unallocated idle, allocated idle and the rest (busy, or
    'allocated' while no telemetry says what was busy)."""
    allocated = frame["accelerator_cost"] - frame["unallocated_idle_cost"]
    has_busy = frame["allocated_idle_cost"].notna()
    allocated_idle = frame["allocated_idle_cost"].fillna(Decimal(0))
    parts = {
        "Unallocated idle": frame["unallocated_idle_cost"],
        "Allocated idle": allocated_idle.where(has_busy),
        "Allocated, busy": (allocated - allocated_idle).where(has_busy),
        f"Allocated ({NO_TELEMETRY})": allocated.where(~has_busy),
    }
    wide = pd.DataFrame({"dimension_value": frame["group_value"], **parts})
    long = wide.melt(id_vars="dimension_value", var_name="kind", value_name="usd")
    return long.dropna(subset=["usd"])


def _money_metric(col: Any, key: str, value: Any) -> None:
    col.metric(f"{figure(key).name} (USD)", money(value), help=figure(key).definition)


def _headline(row: pd.Series) -> None:
    cols = st.columns(4)
    for col, key in zip(cols, HOURS, strict=False):
        col.metric(f"{figure(key).name}", number(row[key]), help=figure(key).definition)
    _money_metric(cols[2], "unallocated_idle_cost", row["unallocated_idle_cost"])
    if pd.isna(row["allocated_idle_cost"]):
        key = "allocated_idle_cost"
        cols[3].metric(f"{figure(key).name} (USD)", NO_TELEMETRY, help=figure(key).definition)
    else:
        _money_metric(cols[3], "allocated_idle_cost", row["allocated_idle_cost"])
    cols = st.columns(4)
    for col, key in zip(cols, SHARES, strict=False):
        col.metric(figure(key).name, percent(row[key]), help=figure(key).definition)
    _money_metric(cols[3], "accelerator_cost", row["accelerator_cost"])
    st.caption(
        "Definitions: " + ", ".join(definition_link(k) for k in (*SHARES, "accelerator_cost")) + "."
    )


COLUMNS = {
    **{
        key: usd_column(f"{figure(key).name} (USD)")
        for key in ("accelerator_cost", "unallocated_idle_cost", "allocated_idle_cost")
    },
    **{
        key: st.column_config.NumberColumn(figure(key).name, format="%,.1f")
        for key in (*HOURS, "allocated_accelerator_hours", "busy_accelerator_hours")
    },
    **{key: st.column_config.NumberColumn(figure(key).name, format="percent") for key in SHARES},
}


def _by(f: Filters, key: str) -> None:
    title = data.IDLE_DIMENSIONS[key]
    frame = idle(f, key).drop(columns=["unused_commitment_cost", "unused_reservation_cost"])
    st.altair_chart(charts.idle_split(split(frame), title), width="stretch")
    table(frame.rename(columns={"group_value": key}), f"idle_by_{key}", COLUMNS)


def _unused(row: pd.Series) -> None:
    """Idle of its own kinds, beside unallocated idle (docs/allocation.md, "Commitments")."""
    if row["unused_commitment_cost"] or row["unused_reservation_cost"]:
        cols = st.columns(4)
        _money_metric(cols[0], "unused_commitment_cost", row["unused_commitment_cost"])
        _money_metric(cols[1], "unused_reservation_cost", row["unused_reservation_cost"])
        st.caption(
            f"Also idle, of their own kinds (in none of the shares above): "
            f"{definition_link('unused_commitment_cost')} and "
            f"{definition_link('unused_reservation_cost')}; see [Commitments](/commitments)."
        )


def render(f: Filters) -> None:
    st.title("Idle capacity")
    st.caption(
        f"{figure('unallocated_idle_cost').name}: paid, held by no run. "
        f"{figure('allocated_idle_cost').name}: held by a run but not busy (needs telemetry)."
    )
    scope_note(f, APPLIES, "Idle capacity")
    row = idle(f).iloc[0]
    if pd.isna(row["paid_accelerator_hours"]) or not row["paid_accelerator_hours"]:
        empty_state("No accelerator capacity", "No paid accelerator-hour matches these filters.")
        return
    _headline(row)
    _unused(row)
    if len(data.providers()) > 1:
        _by(f, "provider")
    _by(f, "accelerator_type")
    _by(f, "project_id")
    heat = data.query("idle_heatmap", f)
    st.altair_chart(charts.idle_heatmap(heat), width="stretch")
    table(
        heat,
        "idle_by_hour_of_day",
        COLUMNS,
    )
