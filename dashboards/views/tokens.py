"""Cost per million tokens by model, team, workload class, accelerator type, and over time.

Every number comes from cost_per_million_tokens_by (models/queries), the figure's one query,
which the CLI and the month report run too: the headline is its row over every run in the
filters, the table its rows per group, the trend its rows per group and day.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
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
from flopledger.figures import figure

MONEY = ("started_run_cost", "cost_per_million_tokens", "cost_per_million_output_tokens")


def dimension(chosen: str | None) -> str:
    return chosen if chosen in data.TOKEN_DIMENSIONS else "model_name"


def rates(f: Filters, key: str | None, by_day: bool = False) -> pd.DataFrame:
    """The figure's rows in the filters: per `key` value (and day), or one row (key None).
    Token counts are whole numbers (the query sums them exactly)."""
    frame = data.named(
        "cost_per_million_tokens_by", f, dimension=key, second_dimension=None, by_day=by_day
    )
    counts: dict[str, Any] = {
        c: frame[c].map(lambda v: None if pd.isna(v) else int(v)) for c in ("tokens", "tokens_out")
    }
    return frame.assign(**counts).drop(columns=["second_value"])


def render(f: Filters) -> None:
    st.title(figure("cost_per_million_tokens").name)
    st.caption(figure("cost_per_million_tokens").definition + " By the UTC day runs started.")
    key = dimension(
        st.selectbox(
            "Group by",
            list(data.TOKEN_DIMENSIONS),
            format_func=lambda k: data.TOKEN_DIMENSIONS[k],
            key="tokens_by",
        )
    )
    title = data.TOKEN_DIMENSIONS[key]
    grouped = rates(f, key)
    if grouped.empty:
        empty_state("No tokens", "No run with tokens matches these filters.")
        return
    total = rates(f, None).iloc[0]
    cols = st.columns(3)
    cols[0].metric(
        f"{figure('cost_per_million_tokens').name} (USD)",
        money(total["cost_per_million_tokens"]),
        help=figure("cost_per_million_tokens").rounding,
    )
    cols[1].metric("Tokens (millions)", number(total["tokens"] / 1e6, digits=1))
    cols[2].metric(
        f"{figure('started_run_cost').name} (USD)",
        money(total["started_run_cost"]),
        help=figure("started_run_cost").definition,
    )
    st.altair_chart(charts.tokens_bars(grouped, title), width="stretch")
    daily = rates(f, key, by_day=True)
    st.altair_chart(charts.tokens_trend(daily, title), width="stretch")
    table(
        grouped.drop(columns=["day"]).rename(columns={"dimension_value": key}),
        f"cost_per_million_tokens_by_{key}",
        {
            **{k: usd_column(f"{figure(k).name} (USD)") for k in MONEY},
            "tokens": count_column("Tokens (in + out)"),
            "tokens_out": count_column("Tokens out"),
            "runs": count_column("Runs"),
        },
    )
