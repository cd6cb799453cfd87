"""The cost-per-million-tokens page's "Managed inference" section against its marts."""

from __future__ import annotations

from tests.dashboards.helpers import Marts, metric, money


def test_managed_section_matches_its_marts(open_page, marts: Marts) -> None:
    at = open_page("tokens")
    assert "Managed inference" in [h.value for h in at.header]
    spend = marts.one("SELECT sum(cost) FROM managed_inference_daily")
    assert spend > 0
    assert metric(at, "Managed spend (USD)") == money(spend)
    requests = marts.one("SELECT sum(requests) FROM managed_inference_daily")
    assert metric(at, "Managed requests") == f"{requests:,.0f}"
    by_provider = at.dataframe[1].value
    assert set(by_provider["provider"]) == {
        r[0] for r in marts.rows("SELECT DISTINCT provider FROM managed_inference_daily")
    }
    compared = at.dataframe[2].value
    models = marts.rows(
        "SELECT DISTINCT model FROM inference_comparison WHERE provider_cost_same_mix IS NOT NULL"
    )
    assert sorted(compared["model"]) == sorted(m[0] for m in models) and len(models) > 0
    # The existing page is unchanged above the section: its two charts, its own metric.
    assert len(at.get("vega_lite_chart")) == 2


def test_managed_section_follows_team_and_class_filters(open_page, marts: Marts) -> None:
    team = marts.one("SELECT min(team) FROM managed_inference_daily WHERE team IS NOT NULL")
    at = open_page("tokens", {"team": team})
    spend = marts.one("SELECT sum(cost) FROM managed_inference_daily WHERE team = ?", [team])
    assert metric(at, "Managed spend (USD)") == money(spend)
    at = open_page("tokens", {"workload": "batch_inference"})
    spend = marts.one(
        "SELECT sum(cost) FROM managed_inference_daily WHERE workload_class = 'batch_inference'"
    )
    assert metric(at, "Managed spend (USD)") == money(spend)
