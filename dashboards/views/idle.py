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


def idle_shares(idle: dict) -> dict[str, Any]:
    """The three idle shares of docs/glossary.md from idle_totals' row (None without a base):
    unallocated idle / accelerator resource cost, (unallocated + allocated idle) / the same,
    unallocated idle hours / paid hours. Allocated idle counts 0 until telemetry lands."""
    cost, paid = idle["effective_usd"], idle["paid_hours"]
    allocated_idle = idle["allocated_idle_usd"] if idle["rows_with_telemetry"] else Decimal(0)
    return {
        "unallocated_idle_share_of_cost": idle["unallocated_idle_usd"] / cost if cost else None,
        "idle_share_of_cost": (idle["unallocated_idle_usd"] + allocated_idle) / cost
        if cost
        else None,
        "unallocated_idle_share_of_hours": idle["unallocated_idle_hours"] / paid if paid else None,
    }


def _headline(f: Filters) -> None:
    idle = data.query("idle_totals", f).iloc[0].to_dict()
    cols = st.columns(4)
    cols[0].metric("Paid accelerator-hours", number(idle["paid_hours"]))
    cols[1].metric("Unallocated idle hours", number(idle["unallocated_idle_hours"]))
    cols[2].metric(
        "Unallocated idle cost (USD)",
        money(idle["unallocated_idle_usd"]),
        help=figure("unallocated_idle_cost").definition,
    )
    allocated_idle = (
        money(idle["allocated_idle_usd"]) if idle["rows_with_telemetry"] else NO_TELEMETRY
    )
    cols[3].metric(
        "Allocated idle cost (USD)", allocated_idle, help=figure("allocated_idle_cost").definition
    )
    cols = st.columns(4)
    for col, (key, value) in zip(cols, idle_shares(idle).items(), strict=False):
        col.metric(figure(key).name, percent(value), help=figure(key).definition)
    cols[3].metric(
        "Accelerator resource cost (USD)",
        money(idle["effective_usd"]),
        help=figure("accelerator_cost").definition,
    )
    st.caption(
        "Definitions: "
        + ", ".join(
            definition_link(k)
            for k in (
                "unallocated_idle_share_of_cost",
                "idle_share_of_cost",
                "unallocated_idle_share_of_hours",
                "accelerator_cost",
            )
        )
        + "."
    )


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
            "paid_hours": st.column_config.NumberColumn("Paid accelerator-hours", format="%,.1f"),
            "unallocated_idle_hours": st.column_config.NumberColumn(
                "Unallocated idle hours", format="%,.1f"
            ),
            "unallocated_idle_share": st.column_config.NumberColumn(
                figure("unallocated_idle_share_of_cost").name, format="percent"
            ),
            "idle_share_of_cost": st.column_config.NumberColumn(
                figure("idle_share_of_cost").name, format="percent"
            ),
        },
    )


def _unused(f: Filters) -> None:
    """Idle of its own kinds, beside unallocated idle (docs/allocation.md, "Commitments")."""
    unused = data.query("unused_totals", f).iloc[0]
    if unused["unused_commitment_usd"] or unused["unused_reservation_usd"]:
        cols = st.columns(4)
        for col, key, column in (
            (cols[0], "unused_commitment_cost", "unused_commitment_usd"),
            (cols[1], "unused_reservation_cost", "unused_reservation_usd"),
        ):
            col.metric(
                f"{figure(key).name} (USD)", money(unused[column]), help=figure(key).definition
            )
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
    if data.query("idle_totals", f).iloc[0]["paid_hours"] == 0:
        empty_state("No accelerator capacity", "No paid accelerator-hour matches these filters.")
        return
    _headline(f)
    _unused(f)
    if len(data.providers()) > 1:
        _by(f, "provider")
    _by(f, "accelerator_type")
    _by(f, "project_id")
    heat = data.query("idle_heatmap", f)
    st.altair_chart(charts.idle_heatmap(heat), width="stretch")
    table(
        heat,
        "idle_by_hour_of_day",
        {
            "unallocated_idle_usd": usd_column("Unallocated idle (USD)"),
            "paid_hours": st.column_config.NumberColumn("Paid accelerator-hours", format="%,.1f"),
            "unallocated_idle_hours": st.column_config.NumberColumn(
                "Unallocated idle hours", format="%,.1f"
            ),
            "unallocated_idle_share": st.column_config.NumberColumn(
                figure("unallocated_idle_share_of_hours").name, format="percent"
            ),
        },
    )
