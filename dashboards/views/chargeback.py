"""Chargeback: where the bill went, month by month and run-owner team, under the configured
shared-cost policy; and the books' reconciliation. Every team's chargeback adds up to the
effective cost (team_chargeback's blocking check says so before the snapshot is published).

The figures come from their one queries (figures/__init__.py), which the CLI and the month
report run too: chargeback, bill_totals (the bill by usage month) and bill_split (the books'
split); every label is the figure's name.
"""

from __future__ import annotations

from datetime import date

import pandas as pd
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
from flopledger.figures.forecast import Month

SPREAD = {
    "idle_cost_shared": "unallocated_idle_cost",
    "unused_commitment_shared": "unused_commitment_cost",
    "unused_reservation_shared": "unused_reservation_cost",
    "shared_cost": "shared_cost",
}
MONEY = {
    "run_cost": f"{figure('run_cost').name} (USD)",
    **{k: f"{figure(v).name}, spread to the team (USD)" for k, v in SPREAD.items()},
    "chargeback": f"{figure('chargeback').name} (USD)",
    "previous_chargeback": f"{figure('chargeback').name}, the month before (USD)",
    **{f"month_{v}": f"{figure(v).name}, the month's (USD)" for v in SPREAD.values()},
}
PARTS = (
    "run_cost",
    "unallocated_idle_cost",
    "unused_commitment_cost",
    "unused_reservation_cost",
    "shared_cost",
)


def _whole_months(f: Filters) -> tuple[date, date]:
    """The first and last day of the calendar months that overlap the range."""
    return f.start.replace(day=1), Month.of(f.end).last_day


def _bill(f: Filters, frame: pd.DataFrame) -> None:
    start, end = _whole_months(f)
    bill = data.named(
        "bill_totals",
        start_day=start,
        end_day=end,
        providers=[],
        teams=[],
        projects=[],
        group_by=None,
    ).iloc[0]
    months = frame.dropna(subset=["month_shared_cost"]).drop_duplicates("month")
    cols = st.columns(4)
    for col, key in zip(cols, ("billed_cost", "credits", "effective_cost"), strict=False):
        col.metric(f"{figure(key).name} (USD)", money(bill[key]), help=figure(key).definition)
    cols[3].metric(f"{figure('chargeback').name} (USD)", money(frame["chargeback"].sum()))
    cols = st.columns(4)
    cols[0].metric(f"{figure('run_cost').name} (USD)", money(frame["run_cost"].sum()))
    for col, key in zip(cols[1:3], ("unallocated_idle_cost", "shared_cost"), strict=True):
        col.metric(
            f"{figure(key).name} (USD)",
            money(months[f"month_{key}"].sum()),
            help=figure(key).definition,
        )
    policy = frame["policy"].iloc[0]
    cols[3].metric("Shared-cost policy", policy, help=figure("chargeback").definition)
    # Idle of their own kinds: spread like unallocated idle, never part of shared cost.
    cols = st.columns(4)
    for col, key in zip(cols, ("unused_commitment_cost", "unused_reservation_cost"), strict=False):
        col.metric(
            f"{figure(key).name} (USD)",
            money(months[f"month_{key}"].sum()),
            help=figure(key).definition,
        )
    st.caption(
        "The bill is by usage day's month (billing rows that straddle a month's end fall on "
        "their first day's); chargeback by the month of the hour the cost was spread to."
    )


def by_provider(f: Filters) -> pd.DataFrame:
    """Per calendar month and provider: the bill (bill_totals) and the books' split of it
    (bill_split), each from the figure's own query."""
    start, end = _whole_months(f)
    bill = data.named(
        "bill_totals",
        start_day=start,
        end_day=end,
        providers=[],
        teams=[],
        projects=[],
        group_by="provider_month",
    )
    split = data.named(
        "bill_split", start_day=start, end_day=end, invoice_month=None, group_by="provider_month"
    )
    return bill[["month", "provider", "billed_cost", "credits"]].merge(
        split[["month", "provider", *PARTS, "effective_cost"]],
        on=["month", "provider"],
        how="outer",
    )


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
    frame = by_provider(f)
    frame = frame.assign(provider=frame["provider"].map(display_value))
    keys = ("billed_cost", "credits", "effective_cost", *PARTS)
    table(
        frame,
        "chargeback_by_provider",
        {
            "provider": figure("provider").name,
            **{k: usd_column(f"{figure(k).name} (USD)") for k in keys},
        },
    )


def _books() -> None:
    st.subheader("The books")
    if not data.has_table("books"):
        empty_state("No books yet", "Run the pipeline to reconcile the bill.")
        return
    checks = data.query("books_checks")
    closed = bool((checks["difference"] == 0).all())
    st.metric(
        figure("books_close").name, "yes" if closed else "NO", help=figure("books_close").definition
    )
    table(
        checks,
        "books",
        {
            "expected": usd_column("The bill's side (USD)"),
            "actual": usd_column("The allocation's side (USD)"),
            "difference": usd_column("Difference (USD)"),
        },
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
    frame = data.named("chargeback", start_day=f.start, end_day=f.end)
    if frame.empty:
        empty_state("No chargeback yet", "team_chargeback has no month in these dates.")
        _books()
        return
    _bill(f, frame)
    shown = frame.assign(team=frame["team"].map(display_value))
    table(shown, "team_chargeback", {k: usd_column(v) for k, v in MONEY.items()})
    _by_provider(f)
    _books()
