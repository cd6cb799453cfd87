"""What the pages print, as plain functions: durations, internal values in words, the
explorer's parameters (bound lists, whitelisted grouping) and its previous period."""

from __future__ import annotations

from datetime import date

import pytest

from flopledger.dashboards import queries
from flopledger.dashboards.components import definition_link, display_value, duration
from flopledger.dashboards.filters import ExplorerFilters
from flopledger.dashboards.views.explorer import DIMENSIONS, FILTERED, checked, previous_period


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "0 s"), (45, "45 s"), (185, "3 min 5 s"), (180, "3 min"), (4683, "1 h 18 min"),
     (7200, "2 h"), (183600, "2 d 3 h"), (None, "—")],
)  # fmt: skip
def test_durations_read_as_time(seconds, text):
    # 4683 s = 1 h (3600) + 18 min (1080) + 3 s: the seconds go once there are hours.
    assert duration(seconds) == text


def test_internal_values_are_shown_in_words():
    assert display_value("__unallocated__") == "(no team)"
    assert display_value(None) == "(none)"
    assert display_value("llm") == "llm"
    assert definition_link("idle_share_of_cost") == (
        "[idle share of cost](/glossary#idle-share-of-cost)"
    )


def test_the_previous_period_has_the_same_length():
    assert previous_period(date(2026, 10, 1), date(2026, 10, 5)) == (
        date(2026, 9, 26),
        date(2026, 9, 30),
    )


def test_explorer_values_are_bound_and_groupings_whitelisted():
    chosen = {"run_team": ["llm'; DROP TABLE jobs; --"], "not_a_dimension": ["x"]}
    params = ExplorerFilters.of(chosen, "team").params()
    # Every filter is a bound list; the hostile text stays a value; an unknown key is dropped.
    assert params["f_run_team"] == ["llm'; DROP TABLE jobs; --"]
    assert set(params) == {f"f_{d}" for d in FILTERED} | {"f_label", "label_key"}
    assert ExplorerFilters.of(chosen, "team").without(["run_team"]).params()["f_run_team"] == []
    for name in ("explorer_series", "explorer_compare", "explorer_cumulative"):
        assert set(params) <= queries.params(name)
        assert "DROP" not in queries.text(name)
    assert checked("sku_description", "week") == ("sku_description", "week")
    with pytest.raises(ValueError):
        checked("sku_description; --", "day")
    with pytest.raises(ValueError):
        checked("project_id", "fortnight")
    assert len(DIMENSIONS) == 14
