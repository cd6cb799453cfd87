"""Cost per million tokens by model, team, workload class, accelerator type, and over time."""

from __future__ import annotations

from decimal import Decimal

import streamlit as st

from flopledger.dashboards import charts, data
from flopledger.dashboards.components import (
    count_column,
    empty_state,
    money,
    number,
    table,
    usd_column,
)
from flopledger.dashboards.filters import Filters


def dimension(chosen: str | None) -> str:
    return chosen if chosen in data.TOKEN_DIMENSIONS else "model_name"


def per_million(cost: Decimal, tokens: float) -> Decimal:
    """USD per million tokens: cost x 1e6 / tokens, in Decimal (tokens are whole numbers)."""
    return cost * 1_000_000 / int(tokens)


def render(f: Filters) -> None:
    st.title("Cost per million tokens")
    st.caption(
        "Runs with tokens, by the UTC day they started: their cost / (tokens in + out) x 1e6."
    )
    key = dimension(
        st.selectbox(
            "Group by",
            list(data.TOKEN_DIMENSIONS),
            format_func=lambda k: data.TOKEN_DIMENSIONS[k],
            key="tokens_by",
        )
    )
    title = data.TOKEN_DIMENSIONS[key]
    grouped = data.query("tokens_by", f, dimension=key)
    if grouped.empty:
        empty_state("No tokens", "No run with tokens matches these filters.")
        return
    cost, tokens = grouped["effective_usd"].sum(), grouped["tokens"].sum()
    cols = st.columns(3)
    cols[0].metric("USD per million tokens", money(per_million(cost, tokens)))
    cols[1].metric("Tokens (millions)", number(tokens / 1e6, digits=1))
    cols[2].metric("Cost of those runs (USD)", money(cost))
    st.altair_chart(charts.tokens_bars(grouped, title), width="stretch")
    daily = data.query("tokens_daily", f, dimension=key)
    st.altair_chart(charts.tokens_trend(daily, title), width="stretch")
    table(
        grouped.rename(columns={"dimension_value": key}),
        f"cost_per_million_tokens_by_{key}",
        {
            "effective_usd": usd_column("Cost (USD)"),
            "usd_per_million_tokens": usd_column("USD per M tokens"),
            "usd_per_million_output_tokens": usd_column("USD per M output tokens"),
            "tokens": count_column("Tokens (in + out)"),
            "tokens_out": count_column("Tokens out"),
            "runs": count_column("Runs"),
        },
    )
