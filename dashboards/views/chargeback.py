"""Chargeback: where the bill went, month by month and run-owner team, under the configured
shared-cost policy; and the books' reconciliation. Every team's chargeback adds up to the
effective cost (team_chargeback's blocking check says so before the snapshot is published)."""

from __future__ import annotations

import streamlit as st

from flopledger.dashboards import data
from flopledger.dashboards.components import (
    definition_link,
    display_value,
    empty_state,
    money,
    table,
    usd_column,
)
from flopledger.dashboards.filters import Filters
from flopledger.figures import figure

MONEY = {
    "run_cost_usd": "Cost of runs (USD)",
    "idle_usd": "Unallocated idle (USD)",
    "unused_commitment_usd": "Unused commitment (USD)",
    "unused_reservation_usd": "Unused reservation (USD)",
    "shared_usd": "Shared cost (USD)",
    "chargeback_usd": "Chargeback (USD)",
    "month_idle_usd": "Month's unallocated idle (USD)",
    "month_unused_commitment_usd": "Month's unused commitment (USD)",
    "month_unused_reservation_usd": "Month's unused reservation (USD)",
    "month_shared_usd": "Month's shared cost (USD)",
    "month_billed_usd": "Month's billed cost (USD)",
    "month_credits_usd": "Month's credits (USD)",
    "month_effective_usd": "Month's effective cost (USD)",
}


def _bill(frame) -> None:
    months = frame.drop_duplicates("month")
    billed, credits = months["month_billed_usd"].sum(), months["month_credits_usd"].sum()
    effective = months["month_effective_usd"].sum()
    cols = st.columns(4)
    cols[0].metric(f"{figure('billed_cost').name} (USD)", money(billed))
    cols[1].metric(f"{figure('credits').name} (USD)", money(credits))
    cols[2].metric(f"{figure('effective_cost').name} (USD)", money(effective))
    cols[3].metric(f"{figure('chargeback').name} (USD)", money(frame["chargeback_usd"].sum()))
    cols = st.columns(4)
    cols[0].metric(f"{figure('run_cost').name} (USD)", money(frame["run_cost_usd"].sum()))
    cols[1].metric(
        f"{figure('unallocated_idle_cost').name} (USD)", money(months["month_idle_usd"].sum())
    )
    cols[2].metric(f"{figure('shared_cost').name} (USD)", money(months["month_shared_usd"].sum()))
    policy = frame["policy"].iloc[0]
    cols[3].metric("Shared-cost policy", policy, help=figure("chargeback").definition)
    # Idle of their own kinds: spread like unallocated idle, never part of shared cost.
    cols = st.columns(4)
    for col, key, column in (
        (cols[0], "unused_commitment_cost", "month_unused_commitment_usd"),
        (cols[1], "unused_reservation_cost", "month_unused_reservation_usd"),
    ):
        col.metric(
            f"{figure(key).name} (USD)", money(months[column].sum()), help=figure(key).definition
        )


PROVIDER_MONEY = {
    "billed_usd": "Billed cost (USD)",
    "credits_usd": "Credits (USD)",
    "effective_usd": "Effective cost (USD)",
    "run_cost_usd": "Cost of runs (USD)",
    "idle_usd": "Unallocated idle (USD)",
    "unused_commitment_usd": "Unused commitment (USD)",
    "unused_reservation_usd": "Unused reservation (USD)",
    "shared_usd": "Shared cost (USD)",
}


def _by_provider(f: Filters) -> None:
    """Where each provider's bill went, month by month (only with more than one provider)."""
    if len(data.providers()) < 2:
        return
    st.subheader("By provider")
    st.caption(
        f"Each {definition_link('provider')}'s {definition_link('effective_cost')} per month, "
        f"split as the books split it: {definition_link('run_cost')}, "
        f"{definition_link('unallocated_idle_cost')}, {definition_link('unused_commitment_cost')}, "
        f"{definition_link('unused_reservation_cost')} and {definition_link('shared_cost')}. "
        "The teams above are charged every provider's cost together."
    )
    frame = data.query("chargeback_by_provider", start_day=f.start, end_day=f.end)
    frame = frame.assign(provider=frame["provider"].map(display_value))
    table(
        frame,
        "chargeback_by_provider",
        {"provider": "Provider", **{k: usd_column(v) for k, v in PROVIDER_MONEY.items()}},
    )


def _books() -> None:
    st.subheader("The books")
    if not data.has_table("books"):
        empty_state("No books yet", "Run the pipeline to reconcile the bill.")
        return
    checks = data.query("books_checks")
    closed = bool((checks["difference_usd"] == 0).all())
    st.metric(
        figure("books_close").name, "yes" if closed else "NO", help=figure("books_close").definition
    )
    table(
        checks,
        "books",
        {k: usd_column(k.replace("_usd", " (USD)").capitalize()) for k in checks.columns[1:]},
    )


def render(f: Filters) -> None:
    st.title("Chargeback")
    st.caption(
        f"What each {definition_link('run_owner_team')} is charged per calendar month: "
        f"{definition_link('run_cost')}, plus its part of the {definition_link('unallocated_idle_cost')}, "
        f"the {definition_link('unused_commitment_cost')}, the {definition_link('unused_reservation_cost')} "
        f"and the {definition_link('shared_cost')} under the configured policy "
        f"({definition_link('chargeback')}). The months that overlap the sidebar's dates are "
        "shown; the other sidebar filters do not apply (a month's chargeback spreads the whole "
        "bill)."
    )
    frame = data.query("chargeback", start_day=f.start, end_day=f.end)
    if frame.empty:
        empty_state("No chargeback yet", "team_chargeback has no month in these dates.")
        _books()
        return
    _bill(frame)
    shown = frame.assign(team=frame["team"].map(display_value))
    table(shown, "team_chargeback", {k: usd_column(v) for k, v in MONEY.items()})
    _by_provider(f)
    _books()
