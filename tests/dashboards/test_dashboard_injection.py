"""SQL-injection payloads in every filter and search box: no error leaks, no effect on data."""

from __future__ import annotations

from datetime import date

import pytest

from flopledger.dashboards import data
from flopledger.dashboards.filters import Filters
from flopledger.dashboards.views.runs import sort_key
from flopledger.dashboards.views.tokens import dimension
from tests.dashboards.helpers import PAGES, Marts

PAYLOADS = [
    "' OR 1=1 --",
    "'; DROP TABLE cost_per_run; --",
    "llm' UNION SELECT * FROM billing_line_items --",
    '"; DELETE FROM spend_daily; --',
    "%' OR '%'='",
]
TABLES = [
    "cost_per_run",
    "spend_daily",
    "idle_capacity",
    "run_allocation",
    "billing_line_items",
    "jobs",
]
LEAKS = ("Binder Error", "Parser Error", "Catalog Error", "duckdb", "Traceback", "SELECT")


def _page_text(at) -> str:
    return "\n".join(
        str(e.value)
        for kind in ("markdown", "caption", "info", "error", "warning")
        for e in at.get(kind)
    )


@pytest.mark.parametrize("page", list(PAGES))
def test_payloads_in_the_url_filters(open_page, marts: Marts, page: str) -> None:
    before = marts.counts(TABLES)
    url = {key: PAYLOADS for key in ("provider", "team", "project", "workload", "accelerator")}
    at = open_page(page, {**url, "from": PAYLOADS[0], "to": PAYLOADS[1]})
    assert not any(leak in _page_text(at) for leak in LEAKS)
    assert not at.query_params  # unknown values are dropped: the default view, and a clean URL
    assert marts.counts(TABLES) == before


def test_payloads_in_the_run_search_box(open_page, marts: Marts) -> None:
    before = marts.counts(TABLES)
    at = open_page("runs")
    for payload in PAYLOADS:
        at.text_input(key="run_search").set_value(payload).run()
        assert not at.exception and not at.error
        assert at.caption[0].value.startswith(
            "0 runs match"
        )  # the payload is text that matches nothing
        assert not any(leak in _page_text(at) for leak in LEAKS)
    assert marts.counts(TABLES) == before


def test_payloads_reaching_the_data_layer_are_bound(
    fleet_config, marts: Marts, monkeypatch
) -> None:
    monkeypatch.setenv("FLOPLEDGER_CONFIG", str(fleet_config))
    before = marts.counts(TABLES)
    runs = marts.one("SELECT count(*) FROM cost_per_run")
    wide = Filters(date(2000, 1, 1), date(2100, 1, 1))
    for payload in PAYLOADS:
        hostile = Filters(date(2000, 1, 1), date(2100, 1, 1), team=(payload,), project=(payload,))
        counted = data.named("run_totals", hostile, needle="", group_by=None)
        assert counted.iloc[0]["runs"] == 0
        # a hostile sort key or dimension reaches SQL only as a bound value matching no CASE branch
        found = data.named(
            "top_runs", wide, needle=payload, sort_key=payload, descending=True, row_limit=10_000
        )
        assert len(found) == 0
        found = data.named(
            "top_runs", wide, needle="", sort_key=payload, descending=True, row_limit=10_000
        )
        assert len(found) == runs
        grouped = data.named(
            "cost_per_million_tokens_by", wide, dimension=payload, second_dimension=None,
            by_day=False,
        )  # fmt: skip
        assert grouped["dimension_value"].tolist() == ["(none)"]
        assert sort_key(payload) == "effective_cost" and dimension(payload) == "model_name"
    assert marts.counts(TABLES) == before
