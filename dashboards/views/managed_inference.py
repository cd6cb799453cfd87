"""The "Managed inference" section of the cost-per-million-tokens page: managed spend (its own
line, not on the cloud bill), per provider and model, and self-hosted against the cheapest
provider with the utilisation at which self-hosting breaks even. Both come from the figures'
owning queries (models/queries: managed_spend, self_hosted_vs_managed), which the CLI runs too;
every label is the figure's name (figures/__init__.py)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from flopledger.dashboards import data
from flopledger.dashboards.components import (
    count_column,
    empty_state,
    money,
    number,
    scope_note,
    table,
    usd_column,
)
from flopledger.dashboards.filters import Filters
from flopledger.figures import figure


def _spend(f: Filters, group_by: str | None) -> pd.DataFrame:
    """managed_spend in the filters' days, teams and classes: one row, or per provider and model."""
    return data.named(
        "managed_spend",
        start_day=f.start,
        end_day=f.end,
        teams=list(f.team),
        classes=list(f.workload),
        group_by=group_by,
    )


def render(f: Filters) -> None:
    st.header("Managed inference")
    if not data.has_table("inference_comparison"):
        empty_state(
            "No managed inference",
            "Configure `sources.managed_inference` (docs/managed-inference.md).",
        )
        return
    total = _spend(f, None)
    st.caption(
        "Requests to managed providers (gateway logs and providers' exports), by the UTC day they "
        "ran. Not part of the cloud bill. A team filter keeps gateway requests of those teams "
        "(providers' exports carry no team)."
    )
    scope_note(f, {"team", "workload"}, "Managed inference")
    if total.empty:
        empty_state("No managed requests", "No managed inference matches these filters.")
        return
    row = total.iloc[0]
    cols = st.columns(3)
    cols[0].metric(
        f"{figure('managed_spend').name} (USD)",
        money(row["managed_spend"]),
        help=figure("managed_spend").definition,
    )
    cols[1].metric("Managed requests", number(row["managed_requests"], digits=0))
    cols[2].metric(
        "Managed tokens (millions)", number(float(row["managed_tokens"]) / 1e6, digits=1)
    )
    providers = _spend(f, "provider_model").drop(columns=["providers", "first_day", "last_day"])
    table(
        providers,
        "managed_inference_by_provider",
        {
            "managed_requests": count_column("Managed requests"),
            "managed_tokens": count_column("Managed tokens"),
            "managed_spend": usd_column(f"{figure('managed_spend').name} (USD)"),
            **{
                key: usd_column(f"{figure(key).name} (USD)")
                for key in (
                    "managed_cost_per_million_tokens",
                    "managed_cost_per_million_output_tokens",
                )
            },
            "managed_error_rate": st.column_config.NumberColumn(
                figure("managed_error_rate").name, format="percent"
            ),
        },
    )
    _comparison(f)


def _comparison(f: Filters) -> None:
    st.subheader("Self-hosted against managed, per model")
    st.caption(
        "The days self-hosted inference runs served a model a provider prices: their cost per "
        "million tokens, the cheapest provider's list price for the same token mix, and the "
        "break-even utilisation = (cost − idle cost) ÷ the provider's charge. Above it, "
        "self-hosting is cheaper; above 100%, it cannot win."
    )
    compared = data.named("self_hosted_vs_managed", start_day=f.start, end_day=f.end)
    if compared.empty:
        empty_state(
            "Nothing to compare", "No self-hosted inference run of a model a provider prices."
        )
        return
    table(
        compared,
        "self_hosted_vs_managed",
        {
            "self_hosted_cost": usd_column("Self-hosted cost (USD)"),
            "self_hosted_tokens": count_column("Self-hosted tokens"),
            **{
                key: usd_column(f"{figure(key).name} (USD)")
                for key in (
                    "self_hosted_cost_per_million_tokens",
                    "provider_cost_same_mix",
                    "provider_cost_per_million_tokens",
                )
            },
            **{
                key: st.column_config.NumberColumn(figure(key).name, format="percent")
                for key in ("self_hosted_utilisation", "self_hosting_break_even_utilisation")
            },
        },
    )
