"""The "Managed inference" section of the cost-per-million-tokens page: managed spend (its own
line, not on the cloud bill), per provider and model, and self-hosted against the cheapest
provider with the utilisation at which self-hosting breaks even."""

from __future__ import annotations

import streamlit as st

from flopledger.dashboards import data
from flopledger.dashboards.components import (
    empty_state,
    money,
    number,
    scope_note,
    table,
    usd_column,
)
from flopledger.dashboards.filters import Filters


def render(f: Filters) -> None:
    st.header("Managed inference")
    if not data.has_table("inference_comparison"):
        empty_state(
            "No managed inference",
            "Configure `sources.managed_inference` (docs/managed-inference.md).",
        )
        return
    providers = data.query("managed_by_provider", f)
    st.caption(
        "Requests to managed providers (gateway logs and providers' exports), by the UTC day they "
        "ran. Not part of the cloud bill. A team filter keeps gateway requests of those teams "
        "(providers' exports carry no team)."
    )
    scope_note(f, {"team", "workload"}, "Managed inference")
    if providers.empty:
        empty_state("No managed requests", "No managed inference matches these filters.")
        return
    cols = st.columns(3)
    cols[0].metric("Managed spend (USD)", money(providers["cost_usd"].sum()))
    cols[1].metric("Managed requests", number(providers["requests"].sum(), digits=0))
    cols[2].metric("Managed tokens (millions)", number(providers["tokens"].sum() / 1e6, digits=1))
    table(
        providers,
        "managed_inference_by_provider",
        {
            "cost_usd": usd_column("Cost (USD)"),
            "usd_per_million_tokens": usd_column("USD per M tokens"),
            "usd_per_million_output_tokens": usd_column("USD per M output tokens"),
            "error_rate": st.column_config.NumberColumn("Error rate", format="percent"),
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
    compared = data.query("managed_vs_self_hosted", start_day=f.start, end_day=f.end)
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
            "self_hosted_usd_per_million_tokens": usd_column("Self-hosted USD per M tokens"),
            "provider_usd_per_million_tokens": usd_column("Provider USD per M tokens"),
            "utilisation": st.column_config.NumberColumn("Utilisation now", format="percent"),
            "break_even_utilisation": st.column_config.NumberColumn(
                "Break-even utilisation", format="percent"
            ),
        },
    )
