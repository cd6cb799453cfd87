"""Commitments: what committed and reserved accelerators cost, who used them, what went unused
(commitment_utilisation and unused_capacity; docs/allocation.md, "Commitments")."""

from __future__ import annotations

from decimal import Decimal

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
    cols = st.columns(5)
    committed = float(days["committed_accelerator_hours"].sum()) if not days.empty else 0.0
    used = float(days["used_accelerator_hours"].sum()) if not days.empty else 0.0
    cols[0].metric(
        "Commitment fees (USD)", money(days["fee_usd"].sum() if not days.empty else Decimal(0))
    )
    cols[1].metric(
        "Utilisation",
        percent(used / committed if committed else None),
        help="Committed accelerator-hours used by usage with the commitment's credit / committed.",
    )
    cols[2].metric(
        "Saved vs on-demand (USD)",
        money(days["savings_usd"].sum() if not days.empty else Decimal(0)),
        help="What the committed-use credits took off on-demand prices, before the fee.",
    )
    cols[3].metric(
        f"{figure('unused_commitment_cost').name} (USD)",
        money(days["unused_usd"].sum() if not days.empty else Decimal(0)),
        help=figure("unused_commitment_cost").definition,
    )
    cols[4].metric(
        f"{figure('unused_reservation_cost').name} (USD)",
        money(reservations["unused_usd"].sum() if not reservations.empty else Decimal(0)),
        help=figure("unused_reservation_cost").definition,
    )
    if not days.empty:
        st.altair_chart(charts.commitment_utilisation(days), width="stretch")
        table(
            days,
            "commitments_by_day",
            {
                "fee_usd": usd_column("Fee (USD)"),
                "savings_usd": usd_column("Saved vs on-demand (USD)"),
                "net_savings_usd": usd_column("Net of the fee (USD)"),
                "unused_usd": usd_column("Unused (USD)"),
                "utilisation": st.column_config.NumberColumn("Utilisation", format="percent"),
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
    table(
        reservations,
        "unused_reservations",
        {
            "unused_usd": usd_column("Unused (USD)"),
            "project_id": st.column_config.TextColumn("Project"),
            "reservation": st.column_config.TextColumn("Reservation"),
            "resource_kind": st.column_config.TextColumn("Reserved"),
            "unused_hours": st.column_config.NumberColumn(
                "Unused accelerator-hours", format="%,.1f"
            ),
        },
    )
