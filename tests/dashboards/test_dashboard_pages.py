"""One AppTest per page on a simulated fleet: the numbers match the marts, filters change them."""

from __future__ import annotations

from pathlib import Path

from flopledger.settings import load_config
from flopledger.warehouse.duckdb import DuckDBWarehouse, connect
from tests.dashboards.helpers import Marts, infos, metric, money

TEAM = "llm"


def test_overview_matches_the_marts_and_follows_filters(open_page, marts: Marts) -> None:
    at = open_page("overview")
    spend = marts.one("SELECT sum(effective_cost) FROM spend_daily")
    runs = marts.one("SELECT sum(effective_cost) FROM cost_per_run")
    unallocated, total = marts.rows(
        "SELECT sum(unallocated_idle_cost), sum(effective_cost) FROM idle_capacity"
    )[0]
    assert metric(at, "Spend (label team) (USD)") == money(spend)
    assert metric(at, "Cost of runs started (USD)") == money(runs)
    # no telemetry: allocated idle is unknown, so the share is unallocated idle / cost
    assert metric(at, "Idle share of cost") == f"{float(unallocated / total) * 100:.1f}%"
    assert len(at.get("vega_lite_chart")) >= 2  # top teams, spend trend
    _check_budgets(at, marts, current_only=True)

    at = open_page("overview", {"team": TEAM, "to": "2026-10-01"})
    team_spend = marts.one(
        "SELECT sum(effective_cost) FROM spend_daily WHERE team = ? AND day = DATE '2026-10-01'",
        [TEAM],
    )
    team_runs = marts.one(
        "SELECT sum(effective_cost) FROM cost_per_run WHERE team = ? AND CAST(started_at AS DATE) = DATE '2026-10-01'",
        [TEAM],
    )
    assert metric(at, "Spend (label team) (USD)") == money(team_spend) != money(spend)
    assert metric(at, "Cost of runs started (USD)") == money(team_runs)
    assert {k: str(v).strip("[]'") for k, v in at.query_params.items()} == {
        "team": TEAM,
        "to": "2026-10-01",
    }


def test_cost_per_run_table_detail_search_and_sort(open_page, marts: Marts) -> None:
    at = open_page("runs")
    count, total = marts.rows("SELECT count(*), sum(effective_cost) FROM cost_per_run")[0]
    assert at.caption[0].value.startswith(f"{count} runs match, costing {money(total)}")
    top_id, top_cost, util = marts.rows(
        "SELECT run_id, effective_cost, mean_utilisation_pct FROM cost_per_run ORDER BY effective_cost DESC, run_id LIMIT 1"
    )[0]
    assert at.dataframe[0].value["run_id"].iloc[0] == top_id
    assert metric(at, "Cost of runs (USD)") == money(top_cost)
    assert metric(at, "Mean utilisation") == (
        "no telemetry yet" if util is None else f"{util:,.1f}%"
    )
    resource_cost = marts.one(
        "SELECT sum(effective_cost) FROM run_allocation WHERE run_id = ?", [top_id]
    )
    assert at.dataframe[1].value["run_cost"].sum() == resource_cost  # Decimal: every digit
    assert len(at.get("vega_lite_chart")) == 1  # cost by resource and hour

    at.text_input(key="run_search").set_value(top_id.upper()).run()
    assert at.caption[0].value.startswith(f"1 runs match, costing {money(top_cost)}")

    at.text_input(key="run_search").set_value("").run()
    at.selectbox(key="run_sort").set_value("started_at").run()
    at.toggle(key="run_desc").set_value(False).run()
    first = marts.one("SELECT run_id FROM cost_per_run ORDER BY started_at, run_id LIMIT 1")
    assert at.dataframe[0].value["run_id"].iloc[0] == first


def test_cost_per_run_follows_workload_filter(open_page, marts: Marts) -> None:
    at = open_page("runs", {"workload": "pretraining"})
    count = marts.one("SELECT count(*) FROM cost_per_run WHERE workload_class = 'pretraining'")
    assert at.caption[0].value.startswith(f"{count} runs match")
    assert set(at.dataframe[0].value["workload_class"]) == {"pretraining"}


def _per_million(marts: Marts, where: str = "TRUE", params: list | None = None) -> str:
    cost, tokens = marts.rows(
        f"SELECT sum(effective_cost), sum(coalesce(tokens_in, 0) + coalesce(tokens_out, 0)) "
        f"FROM cost_per_million_tokens WHERE {where}",
        params,
    )[0]
    return money(float(cost) / (float(tokens) / 1e6))


def test_cost_per_million_tokens_matches_its_mart(open_page, marts: Marts) -> None:
    at = open_page("tokens")
    assert metric(at, "Cost per million tokens (USD)") == _per_million(marts)
    assert len(at.get("vega_lite_chart")) == 2
    at.selectbox(key="tokens_by").set_value("accelerator_type").run()
    types = marts.rows("SELECT DISTINCT accelerator_type FROM cost_per_million_tokens ORDER BY 1")
    assert sorted(at.dataframe[0].value["accelerator_type"]) == [t[0] for t in types]

    at = open_page("tokens", {"team": TEAM})
    assert (
        metric(at, "Cost per million tokens (USD)")
        == _per_million(marts, "team = ?", [TEAM])
        != _per_million(marts)
    )


def test_idle_capacity_matches_its_mart(open_page, marts: Marts) -> None:
    at = open_page("idle")
    idle, hours, allocated_idle = marts.rows(
        "SELECT sum(unallocated_idle_cost), sum(unallocated_idle_hours), sum(allocated_idle_cost) FROM idle_capacity"
    )[0]
    assert metric(at, "Unallocated idle cost (USD)") == money(idle)
    assert metric(at, "Unallocated idle hours") == f"{hours:,.1f}"
    assert metric(at, "Allocated idle cost (USD)") == (
        "no telemetry yet" if allocated_idle is None else money(allocated_idle)
    )
    assert len(at.get("vega_lite_chart")) == 3  # by type, by project, hour-of-day heatmap

    at = open_page("idle", {"accelerator": "TPU-v6e"})
    tpu = marts.one(
        "SELECT sum(unallocated_idle_cost) FROM idle_capacity WHERE accelerator_type = 'TPU-v6e'"
    )
    assert metric(at, "Unallocated idle cost (USD)") == money(tpu) != money(idle)


def _check_budgets(at, marts: Marts, current_only: bool) -> None:
    """The budget table shows budget_status's rows (current periods on the Overview), or the empty state."""
    where = "WHERE is_current" if current_only else ""
    rows = marts.rows(
        f"SELECT budget, spend_to_date FROM budget_status {where} ORDER BY is_current DESC, period_start DESC, budget, period_kind, period_key"
    )
    if not rows:
        assert "No budgets yet" in infos(at)
        return
    shown = next(t.value for t in at.dataframe if "budget" in t.value.columns)
    assert shown["budget"].tolist() == [r[0] for r in rows]
    assert [money(v) for v in shown["spend_to_date"]] == [money(r[1]) for r in rows]


def test_efficiency_shows_honest_empty_states(open_page) -> None:
    at = open_page("efficiency")
    assert "No probe data yet" in infos(at)
    # MFU against the spec peak needs no probes: the runs' model FLOPs and held time suffice.
    assert "No MFU yet" not in infos(at)
    assert len(at.get("vega_lite_chart")) == 1


def test_portfolio_matches_its_marts_and_follows_filters(open_page, marts: Marts) -> None:
    at = open_page("portfolio")
    assert len(at.get("vega_lite_chart")) == 1  # USD per million tokens per class and family
    shown = at.dataframe[0].value
    total = marts.one("SELECT sum(effective_cost) FROM accelerator_portfolio")
    assert shown["effective_cost"].sum() == total  # Decimal: every digit, managed rows included
    side_by_side = marts.one("SELECT count(*) FROM model_portfolio")
    if side_by_side:
        assert len(at.dataframe[1].value) == side_by_side
    else:
        assert "No model ran on two families" in infos(at)

    at = open_page("portfolio", {"workload": "pretraining", "accelerator": "H100-80GB"})
    shown = at.dataframe[0].value
    assert set(shown["workload_class"]) <= {"pretraining"}
    assert set(shown["family"]) <= {"H100-80GB"}
    assert shown["effective_cost"].sum() == marts.one(
        "SELECT coalesce(sum(effective_cost), 0) FROM cost_per_run "
        "WHERE workload_class = 'pretraining' AND accelerator_type = 'H100-80GB'"
    )


def test_budgets_and_alerts_match_their_tables(open_page, marts: Marts) -> None:
    at = open_page("budgets")
    _check_budgets(at, marts, current_only=False)
    alerts = marts.one("SELECT count(*) FROM alerts")
    if alerts:
        assert metric(at, "Alerts") == f"{alerts:,}"
    else:
        assert "No alerts yet" in infos(at)


PROBE = (
    "INSERT INTO probe_results (result_id, measured_at, node, device_index, device_kind, accelerator_type, "
    "backend, dtype, m, n, k, achieved_tflops, median_tflops, peak_tflops_spec, efficiency, verified, "
    "probe_version) VALUES (?, TIMESTAMP '2026-10-02 03:00:00', ?, 0, ?, ?, 'gpu', 'bf16', 8192, 8192, "
    "8192, ?, ?, ?, ?, true, '1')"
)
BUDGET = (
    "INSERT INTO budget_status VALUES ('dash-test-budget', 'month', '2026-10', DATE '2026-10-01', DATE '2026-10-31', "
    "true, TIMESTAMP '2026-10-03 23:00:00', 'team=llm', 'billing', 'USD', 20000, 1, 20000, 7000.5, 2333.5, 3, 71000, 35.0025, 355.0, "
    "[50.0, 80.0, 100.0], [], false, true, true, ['finance'])"
)
ALERT = (
    "INSERT INTO alerts VALUES ('forecast:dash-test-budget:2026-10', 'forecast', 'dash-test-budget', 'warning', "
    "'dash-test-budget forecast over budget', 'forecast 71,000 USD > 20,000 USD', NULL, ['finance'], "
    "TIMESTAMP '2026-10-03 06:00:00', NULL, NULL)"
)


def _add_probes_and_budgets(config: Path) -> None:
    """What the probe and budget issues write, inserted into a private copy; marts rebuilt, published."""
    warehouse = DuckDBWarehouse(load_config(config).warehouse.path)
    con = connect(warehouse.path)
    try:
        for i, (kind, achieved, spec) in enumerate(
            [("H100-80GB", 720.0, 989.0), ("TPU-v6e", 800.0, 918.0)]
        ):
            con.execute(
                PROBE,
                [
                    f"r{i}",
                    f"node-{i}",
                    kind,
                    kind,
                    achieved,
                    achieved * 0.98,
                    spec,
                    achieved / spec,
                ],
            )
        con.execute(BUDGET)
        con.execute(ALERT)
    finally:
        con.close()
    for table in ("probe_results", "budget_status", "alerts"):  # written behind its back
        warehouse.record_changes(table, None)  # so the publish takes them in
    warehouse.build_mart("accelerator_efficiency")
    warehouse.publish_snapshot()


def test_efficiency_and_budgets_with_data(open_page, fleet_copy: Path) -> None:
    _add_probes_and_budgets(fleet_copy)
    at = open_page("efficiency", config=fleet_copy)
    assert len(at.get("vega_lite_chart")) == 2  # achieved vs spec per node type, and MFU
    assert sorted(at.dataframe[0].value["accelerator"]) == ["H100-80GB", "TPU-v6e"]
    at = open_page("efficiency", {"accelerator": "TPU-v6e"}, config=fleet_copy)
    assert list(at.dataframe[0].value["best_achieved_tflops"]) == [800.0]

    at = open_page("budgets", config=fleet_copy)
    assert len(at.get("vega_lite_chart")) == 1  # spend, forecast and amount per current budget
    copy = Marts(fleet_copy)
    _check_budgets(at, copy, current_only=False)
    assert "dash-test-budget" in at.dataframe[0].value["budget"].tolist()
    assert metric(at, "Alerts") == f"{copy.one('SELECT count(*) FROM alerts'):,}"
    assert (
        metric(at, "Not yet delivered")
        == f"{copy.one('SELECT count(*) FROM alerts WHERE notified_at IS NULL'):,}"
    )
    at = open_page("overview", config=fleet_copy)
    assert "No budgets yet" not in infos(at)
