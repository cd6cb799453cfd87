"""Commitments: what committed and reserved accelerators cost, who used them, what went unused
(commitment_utilisation and unused_capacity; docs/allocation.md, "Commitments")."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from flopledger.dashboards import charts, data
from flopledger.dashboards.components import (
    empty_state,
    money,
    percent,
    scope_note,
    table,
    usd_column,
)
from flopledger.dashboards.filters import Filters
from flopledger.figures import figure

APPLIES = {"project", "accelerator"}


MONEY = ("commitment_fee", "commitment_savings", "commitment_net_savings")


def _headline(totals: pd.Series, idle: pd.Series) -> None:
    """The commitment figures (commitment_totals) and the two unused kinds (idle_figures, as
    the Idle page and the CLI read them), under their glossary names."""
    cols = st.columns(5)
    for col, key in zip(cols, ("commitment_fee", "commitment_savings"), strict=False):
        col.metric(f"{figure(key).name} (USD)", money(totals[key]), help=figure(key).definition)
    cols[2].metric(
        figure("commitment_utilisation").name,
        percent(totals["commitment_utilisation"]),
        help=figure("commitment_utilisation").definition,
    )
    for col, key in zip(
        cols[3:], ("unused_commitment_cost", "unused_reservation_cost"), strict=True
    ):
        col.metric(f"{figure(key).name} (USD)", money(idle[key]), help=figure(key).definition)


def render(f: Filters) -> None:
    st.title("Commitments")
    st.caption(
        "A commitment's fee is shared, hour by hour, among the resources whose usage got its "
        "committed-use credit, in proportion to that usage; the part no usage took is unused "
        "commitment. Reserved capacity no VM consumed is unused reservation. Both are idle of "
        "their own kind, beside unallocated idle, never in shared cost."
    )
    scope_note(f, APPLIES, "A commitment")
    days = data.query("commitments_daily", f)
    reservations = data.query("unused_reservations", f)
    if days.empty and reservations.empty:
        empty_state(
            "No commitments or reservations",
            "No commitment fee (SKUs beginning `Commitment v1: `) and no unused reservation "
            "matches these filters.",
        )
        return
    totals = data.named("commitment_totals", f)
    idle = data.named(  # the page's scope: a commitment belongs to no provider filter
        "idle_figures",
        start_day=f.start,
        end_day=f.end,
        providers=[],
        projects=list(f.project),
        accelerators=list(f.accelerator),
        group_by=None,
    )
    _headline(totals.iloc[0], idle.iloc[0])
    if not days.empty:
        st.altair_chart(charts.commitment_utilisation(days), width="stretch")
        table(
            days,
            "commitments_by_day",
            {
                **{
                    k: usd_column(f"{figure(k).name} (USD)")
                    for k in (*MONEY, "unused_commitment_cost")
                },
                "commitment_utilisation": st.column_config.NumberColumn(
                    figure("commitment_utilisation").name, format="percent"
                ),
                "committed_accelerator_hours": st.column_config.NumberColumn(
                    "Committed accelerator-hours", format="%,.1f"
                ),
                "used_accelerator_hours": st.column_config.NumberColumn(
                    "Used accelerator-hours", format="%,.1f"
                ),
                "teams": st.column_config.TextColumn("Teams that used it"),
                "day": st.column_config.DateColumn("Day (UTC)"),
                "commitment_id": st.column_config.TextColumn("Commitment"),
                "hours_used": st.column_config.NumberColumn("Hours used"),
                "resource_kind": st.column_config.TextColumn("Commits"),
                "sku_description": st.column_config.TextColumn("Fee SKU"),
                "project_id": st.column_config.TextColumn("Fee project"),
            },
        )
    st.subheader("Unused reservations")
    if reservations.empty:
        empty_state("No unused reservation", "Every reserved hour in these filters was consumed.")
        return
    key = "unused_reservation_cost"
    table(
        reservations,
        "unused_reservations",
        {
            key: usd_column(f"{figure(key).name} (USD)"),
            "project_id": st.column_config.TextColumn("Project"),
            "reservation": st.column_config.TextColumn("Reservation"),
            "resource_kind": st.column_config.TextColumn("Reserved"),
            "unused_accelerator_hours": st.column_config.NumberColumn(
                "Unused accelerator-hours", format="%,.1f"
            ),
        },
    )
