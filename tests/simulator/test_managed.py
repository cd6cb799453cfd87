"""Simulated managed inference: the pipeline's managed cost equals the simulated requests' truth.

Any fleet gets managed traffic by default. The truth is the simulator's own arithmetic
(simulator/managed.py states the rule), never the SQL's: per request, and per export day.
"""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from pathlib import Path

import pytest

from flopledger.pipelines.runner import run_pipeline
from flopledger.settings import load_config
from flopledger.simulator import SimulationResult, simulate
from flopledger.warehouse import open_warehouse


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[SimulationResult, object]:
    result = simulate(
        tmp_path_factory.mktemp("managed"), gpus=24, tpu_chips=0, days=2, seed=5, telemetry=False
    )
    report = run_pipeline(load_config(result.config_path), result.config_path)
    assert report.succeeded, report.failures
    return result, open_warehouse(report.config.warehouse)


def _truth(result: SimulationResult, name: str) -> list[dict[str, str]]:
    with (result.out_dir / "truth" / name).open() as fh:
        return list(csv.DictReader(fh))


def test_every_request_costs_its_truth(built) -> None:
    result, warehouse = built
    truth = {r["request_id"]: r for r in _truth(result, "managed_requests.csv")}
    got = warehouse.query("SELECT request_id, cost, cost_source FROM cost_per_request").to_pylist()
    assert len(got) == len(truth) > 0
    assert {r["request_id"]: (r["cost"], r["cost_source"]) for r in got} == {
        k: (Decimal(t["cost_usd"]), t["cost_source"]) for k, t in truth.items()
    }


def test_managed_cost_equals_truth(built) -> None:
    result, warehouse = built
    totals = json.loads((result.out_dir / "truth" / "managed_totals.json").read_text())
    got = warehouse.query(
        "SELECT source, sum(cost) AS cost FROM managed_inference_daily GROUP BY source"
    ).to_pylist()
    by_source = {r["source"]: r["cost"] for r in got}
    assert by_source["gateway"] == Decimal(totals["gateway_usd"])
    assert by_source["provider_export"] == Decimal(totals["provider_export_usd"])
    assert (
        sum(by_source.values())
        == Decimal(totals["managed_usd"])
        == Decimal(result.managed["managed_usd"])
    )


def test_comparison_filled_and_mismatches_flagged(built) -> None:
    _, warehouse = built
    both = warehouse.query(
        """SELECT count(*) AS n FROM inference_comparison
           WHERE self_hosted_runs > 0 AND managed_requests > 0 AND provider_cost_same_mix > 0"""
    ).to_pylist()[0]["n"]
    assert both > 0
    # Every simulated day, some model is served both ways.
    days = warehouse.query(
        """SELECT day, count(*) FILTER (WHERE self_hosted_runs > 0 AND managed_requests > 0) AS n
           FROM inference_comparison GROUP BY day ORDER BY day"""
    ).to_pylist()
    assert [str(d["day"]) for d in days] == ["2026-10-01", "2026-10-02"]
    assert all(d["n"] > 0 for d in days)
    # The gateway's mixtral price is stale (0.54 against the book's 0.60): flagged, not used.
    flagged = warehouse.query(
        "SELECT DISTINCT provider, model FROM cost_per_request WHERE price_mismatch"
    ).to_pylist()
    assert flagged in ([], [{"provider": "together_ai", "model": "mixtral-8x7b"}])
    assert (
        warehouse.query(
            "SELECT count(*) AS n FROM cost_per_request WHERE cost IS NULL"
        ).to_pylist()[0]["n"]
        == 0
    )


def test_demo_bill_is_untouched(built) -> None:
    """Managed spend is its own line: the cloud bill's rows are the simulator's billing truth."""
    result, warehouse = built
    billed = warehouse.query("SELECT sum(cost_usd) AS b FROM billing_line_items").to_pylist()[0][
        "b"
    ]
    assert billed == Decimal(result.totals["billed_usd"])


def test_rerun_changes_nothing(built) -> None:
    result, warehouse = built
    before = warehouse.query("SELECT * FROM managed_inference_daily ORDER BY ALL").to_pylist()
    report = run_pipeline(load_config(result.config_path), result.config_path)
    assert report.succeeded, report.failures
    assert (
        warehouse.query("SELECT * FROM managed_inference_daily ORDER BY ALL").to_pylist() == before
    )


def test_config_and_files(built) -> None:
    result, _ = built
    out: Path = result.out_dir
    assert sorted(p.name for p in (out / "managed" / "gateway").iterdir()) == [
        "2026-10-01.ndjson",
        "2026-10-02.ndjson",
    ]
    # The last day's costs are not exported yet: the book costs that day.
    assert sorted(p.name for p in (out / "managed" / "fireworks_ai").iterdir()) == [
        "costs-2026-10-01.json", "usage-2026-10-01.json", "usage-2026-10-02.json"]  # fmt: skip


def test_headline_shows_managed_spend_on_its_own_line(built) -> None:
    from flopledger.cli.headline import headline_lines

    result, warehouse = built
    text = "\n".join(headline_lines(warehouse, "USD"))
    spend = Decimal(result.managed["managed_usd"])
    assert "(not on the cloud bill)" in text
    assert f"{spend:,.2f} USD" in text
    assert "self-hosted vs managed, per M tokens" in text
