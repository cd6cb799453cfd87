"""Timing a page load, for benchmarks/dashboard_queries.py (here, as the one room that imports
streamlit).

`load_page` runs the app in Streamlit's AppTest with the query cache cleared and adds up the
time spent in the data layer's reads.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import streamlit as st
from streamlit.testing.v1 import AppTest

from flopledger import dashboards
from flopledger.dashboards import data

APP = Path(dashboards.__file__).resolve().parent / "app.py"


class QueryClock:
    """Adds up the time spent in the data layer's reads (`dashboards.data._read`)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.queries = 0
        self._inner = data._read

    def __enter__(self) -> QueryClock:
        clock = self

        def timed(*args: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return clock._inner(*args)
            finally:
                clock.seconds += time.perf_counter() - t0
                clock.queries += 1

        data._read = timed  # type: ignore[assignment]  # same call shape, timed
        return self

    def __exit__(self, *exc: object) -> None:
        data._read = self._inner


def load_page(page: str | None, url: dict[str, str]) -> tuple[float, int, float]:
    """(query seconds, queries, whole run seconds) for one uncached page load."""
    st.cache_data.clear()
    at = AppTest.from_file(str(APP), default_timeout=120)
    for key, value in url.items():
        at.query_params[key] = value
    with QueryClock() as clock:
        t0 = time.perf_counter()
        at.run()
        if page:
            at.switch_page(page)
            st.cache_data.clear()
            clock.seconds, clock.queries = 0.0, 0  # count the page's own load only
            t0 = time.perf_counter()
            at.run()
        wall = time.perf_counter() - t0
    assert not at.exception and not at.error, [e.value for e in [*at.exception, *at.error]]
    return clock.seconds, clock.queries, wall
