"""The shared filters in the sidebar, kept in the URL (`st.query_params`) and session state."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pandas as pd
import streamlit as st

from flopledger.dashboards import data
from flopledger.dashboards.components import display_value
from flopledger.dashboards.filters import DIMENSIONS, Filters, from_url, to_url

STATE_KEY = "filters"
# URL keys a page keeps for itself (the cost explorer's grouping and period), left as they are.
PAGE_KEYS = ("group", "grain")
HELP = {
    "provider": "The cloud that bills it: gcp (Google's billing export) or a FOCUS export's "
    "ProviderName (AWS, Microsoft, Oracle ...). Shown only when the warehouse holds more than "
    "one. See the Glossary.",
    "team": "Spend is filtered by label team (the billing rows' team label), runs by run-owner "
    "team (the job record's). See the Glossary.",
}


def options() -> dict[str, list[str]]:
    """The values each filter offers, from the snapshot. A warehouse of one provider offers no
    provider filter (nothing to choose: the sidebar looks as it did before other clouds)."""
    frame = data.query("options")
    found = {dim: frame.loc[frame["dimension"] == dim, "value"].tolist() for dim in DIMENSIONS}
    if len(data.providers()) < 2:
        found["provider"] = []
    return found


def bounds() -> tuple[date, date]:
    """First and last UTC day with data (today when the warehouse is empty)."""
    row = data.query("bounds").iloc[0]
    if pd.isna(row["first_day"]) or pd.isna(row["last_day"]):
        today = datetime.now(UTC).date()
        return today, today
    return pd.Timestamp(row["first_day"]).date(), pd.Timestamp(row["last_day"]).date()


def _seed_from_url(opts: dict[str, list[str]], lo: date, hi: date) -> None:
    url = {key: st.query_params.get_all(key) for key in st.query_params}
    seeded = from_url(url, opts, lo, hi)
    st.session_state["f_dates"] = (seeded.start, seeded.end)
    for dim in DIMENSIONS:
        st.session_state[f"f_{dim}"] = list(seeded.chosen(dim))


def _sanitise_state(opts: dict[str, list[str]], lo: date, hi: date) -> None:
    """Keep session values valid when a new snapshot changes the options or bounds."""
    days = tuple(st.session_state.get("f_dates") or (lo, hi))
    start, end = (days[0], days[-1]) if days else (lo, hi)
    start, end = min(max(start, lo), hi), min(max(end, lo), hi)
    st.session_state["f_dates"] = (min(start, end), max(start, end))
    for dim in DIMENSIONS:
        known = set(opts[dim])
        st.session_state[f"f_{dim}"] = [
            v for v in st.session_state.get(f"f_{dim}", []) if v in known
        ]


def _pick(dim: str, label: str, values: list[str]) -> tuple[str, ...]:
    """One filter's multiselect; none for the provider when there is one provider only."""
    if dim == "provider" and not values:
        return ()
    return tuple(
        st.sidebar.multiselect(
            label,
            values,
            key=f"f_{dim}",
            placeholder="All",
            format_func=display_value,
            help=HELP.get(dim),
        )
    )


def _widgets(opts: dict[str, list[str]], lo: date, hi: date) -> Filters:
    side = st.sidebar
    side.header("Filters")
    days = side.date_input("Dates (UTC)", key="f_dates", min_value=lo, max_value=hi)
    start, end = (days[0], days[-1]) if isinstance(days, tuple) and days else (lo, hi)
    chosen = {dim: _pick(dim, label, opts[dim]) for dim, label in DIMENSIONS.items()}
    return Filters(start, end, **chosen)


def render() -> Filters:
    """Draw the filters, mirror them into the URL, and keep them for the page."""
    opts, (lo, hi) = options(), bounds()
    if "f_dates" not in st.session_state:
        _seed_from_url(opts, lo, hi)
    _sanitise_state(opts, lo, hi)
    filters = _widgets(opts, lo, hi)
    kept = {k: st.query_params.get_all(k) for k in PAGE_KEYS if k in st.query_params}
    st.query_params.from_dict({**kept, **to_url(filters, lo, hi)})
    st.session_state[STATE_KEY] = filters
    return filters


def current() -> Filters:
    """The filters drawn by the app's entry script in this run."""
    return st.session_state[STATE_KEY]
