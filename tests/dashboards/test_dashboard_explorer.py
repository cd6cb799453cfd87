"""The cost explorer on a simulated fleet: every grouping adds up to the effective cost, to the
nano-dollar; filters narrow it; and the idle figures agree between the CLI, the pages and the
alerts (one name, one number: docs/glossary.md)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from flopledger.budgets.budget_file import EfficiencyRule
from flopledger.budgets.efficiency import efficiency_alerts, measure
from flopledger.cli.headline import idle_figure_lines
from flopledger.dashboards.views.explorer import DIMENSIONS
from tests.dashboards.helpers import Marts, metric, money


def _effective(marts: Marts) -> Decimal:
    return marts.one("SELECT sum(effective_cost) FROM spend_daily")


def test_every_grouping_adds_up_to_the_effective_cost(open_page, marts: Marts) -> None:
    effective = _effective(marts)
    at = open_page("explorer")
    label = next(m.label for m in at.metric if m.label.startswith("Effective cost, "))
    assert metric(at, label) == money(effective)
    for dimension in DIMENSIONS:
        at.selectbox(key="x_dimension").set_value(dimension).run()
        assert not at.exception and not at.error, dimension
        frame = at.dataframe[0].value  # the series (or, for credit types, the totals) table
        assert frame["effective_cost"].sum() == effective, dimension  # Decimal: every digit
        if dimension != "credit_type":
            compare = at.dataframe[1].value
            assert compare["effective_cost"].sum() == effective, dimension


def test_filters_narrow_the_explorer_to_the_marts(open_page, marts: Marts) -> None:
    # Run-owner team llm: the cost of llm's runs (cost_per_run) and nothing else.
    at = open_page("explorer")
    at.selectbox(key="x_dimension").set_value("run_team").run()
    at.multiselect(key="x_f_run_team").set_value(["llm"]).run()
    llm_runs = marts.one("SELECT sum(effective_cost) FROM cost_per_run WHERE team = 'llm'")
    assert at.dataframe[0].value["effective_cost"].sum() == llm_runs
    # Label team llm grouped by cost part: the billing rows labelled llm (spend_daily).
    at.multiselect(key="x_f_run_team").set_value([]).run()
    at.multiselect(key="x_f_label_team").set_value(["llm"]).run()
    at.selectbox(key="x_dimension").set_value("cost_part").run()
    label_llm = marts.one("SELECT sum(effective_cost) FROM spend_daily WHERE team = 'llm'")
    assert at.dataframe[0].value["effective_cost"].sum() == label_llm
    # The weekly grain keeps the total; periods are dates, never keys.
    at.radio(key="x_grain").set_value("week").run()
    weekly = at.dataframe[0].value
    assert weekly["effective_cost"].sum() == label_llm
    assert all(isinstance(p, date) for p in weekly["period"])


def _shares(lines: list[str]) -> dict[str, str]:
    """CLI idle lines as {figure name: percent text}."""
    found = {}
    for line in lines:
        name, pct = line.split("%")[0].rsplit(maxsplit=1)
        found[name.strip()] = pct + "%"
    return found


def test_idle_figures_agree_between_cli_pages_and_alerts(open_page, marts: Marts) -> None:
    cli = _shares(idle_figure_lines(marts.warehouse))
    idle = open_page("idle")
    for name in ("Unallocated idle share of cost", "Idle share of cost",
                 "Unallocated idle share of hours"):  # fmt: skip
        assert metric(idle, name) == cli[name.lower()], name
    assert metric(open_page("overview"), "Idle share of cost") == cli["idle share of cost"]

    # The idle_cost_share alert per project over the fleet's three days, against the idle page
    # filtered to that project and those days: the same figure under the same name.
    first, last = marts.rows("SELECT min(day), max(day) FROM idle_capacity_daily")[0]
    days = (last - first).days + 1
    rule = EfficiencyRule(name="idle", metric="idle_cost_share", above=0.0, window_days=days)
    as_of = date.fromordinal(last.toordinal() + 1)
    values = measure(marts.warehouse, rule, as_of)
    alerts = efficiency_alerts(rule, values, as_of)
    assert alerts, "no project with idle cost in the fleet"
    for alert in alerts:
        project = alert.details["group"]
        shown = alert.title.split(" is ")[1].split(" ")[0]
        assert alert.title.startswith(f"Idle share of cost of {project} is ")
        page = open_page("idle", {"project": project, "from": str(first), "to": str(last)})
        assert metric(page, "Idle share of cost") == shown, project
        by_project = page.dataframe[1].value.set_index("project_id")
        assert by_project.loc[project, "idle_share_of_cost"] == pytest.approx(
            values[project], rel=1e-12
        )


def test_the_glossary_page_defines_every_figure(open_page) -> None:
    from flopledger.figures import FIGURES

    at = open_page("glossary")
    assert [h.value for h in at.header] == [f.name for f in FIGURES]


def test_chargeback_page_sums_to_the_bill(open_page, marts: Marts) -> None:
    effective = _effective(marts)
    billed = marts.one("SELECT sum(billed_cost) FROM spend_daily")
    at = open_page("chargeback")
    assert metric(at, "Billed cost (USD)") == money(billed)
    assert metric(at, "Effective cost (USD)") == money(effective)
    assert metric(at, "Chargeback (USD)") == money(effective)
    assert metric(at, "Books close") == "yes"
    assert metric(at, "Shared-cost policy") == "proportional"
    assert at.dataframe[0].value["chargeback"].sum() == effective  # every digit
    assert "__unallocated__" not in set(at.dataframe[0].value["team"])


def test_a_hostile_link_shows_the_default_grouping(open_page, marts: Marts) -> None:
    # An unknown grouping or period in the URL is ignored (never reaches SQL): the default view.
    at = open_page("explorer", {"group": "provider'; DROP TABLE jobs; --", "grain": "fortnight"})
    assert at.selectbox(key="x_dimension").value == "provider"
    assert at.radio(key="x_grain").value == "day"
    assert not at.query_params  # the default view keeps a clean URL
    assert at.dataframe[0].value["effective_cost"].sum() == _effective(marts)
    # A known one is taken as given.
    at = open_page("explorer", {"group": "sku_description", "grain": "month"})
    assert (at.selectbox(key="x_dimension").value, at.radio(key="x_grain").value) == (
        "sku_description",
        "month",
    )
