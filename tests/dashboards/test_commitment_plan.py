"""The commitment plan on the simulated fleet (the dashboards' session fleet: 3 days, 16 GPUs,
8 TPU chips, an H100 commitment; the real pipeline built it): its inputs reconcile with
idle_capacity (paid accelerator-hours) and cost_per_run.queue_seconds (queued demand), its
optimum and cost agree with the cost formula evaluated here in SQL (not by the planner), and it
renders in `flopledger plan commitments`, the demo's printout and the Commitments page."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from flopledger.cli.headline import headline_lines
from flopledger.settings import load_config
from flopledger.warehouse import open_warehouse
from tests.dashboards.helpers import PAGES, Marts, metric, money

TOL = 1e-6  # accelerator-hours are DOUBLE in the marts


@pytest.fixture(autouse=True)
def _commitments_page(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(PAGES, "commitments", "pages/commitments.py")


def test_paid_hours_reconcile_with_idle_capacity(marts: Marts) -> None:
    for term in ("1y", "3y"):
        plan = dict(
            marts.rows(
                "SELECT accelerator_type, sum(paid_accelerator_hours) FROM commitment_plan "
                "WHERE term = ? GROUP BY ALL",
                [term],
            )
        )
        idle = dict(
            marts.rows(
                "SELECT accelerator_type, sum(paid_accelerator_hours) FROM idle_capacity "
                "WHERE accelerator_type IS NOT NULL GROUP BY ALL"
            )
        )
        assert set(plan) == set(idle) and len(plan) >= 2
        for kind, hours in idle.items():
            assert plan[kind] == pytest.approx(hours, abs=TOL)


def test_queued_demand_reconciles_with_queue_seconds(marts: Marts) -> None:
    # Queued accelerator-hours = sum over started runs of queue_seconds x accelerators / 3600.
    expected = marts.one(
        "SELECT sum(queue_seconds * accelerator_count) / 3600 FROM cost_per_run "
        "WHERE queue_seconds > 0 AND accelerator_type IS NOT NULL"
    )
    assert expected > 0
    queued = marts.one(
        "SELECT sum(queued_accelerator_hours) FROM commitment_plan WHERE term = '1y'"
    )
    assert queued == pytest.approx(expected, abs=TOL)


def test_every_hour_of_the_fleet_is_in_the_window(marts: Marts) -> None:
    hours = marts.one(
        "SELECT (epoch(max(hour)) - epoch(min(hour))) / 3600 + 1 FROM resource_hour_pool"
    )
    assert {r[0] for r in marts.rows("SELECT DISTINCT hours FROM commitment_plan")} == {hours}


def test_the_plan_is_the_cheapest_whole_commitment(marts: Marts) -> None:
    """cost(L) evaluated in SQL from the hourly demand: the plan's L costs what the plan says,
    and L - 1 and L + 1 cost no less (ties go to the smaller L, so L - 1 costs more)."""
    rows = marts.rows(
        """
        WITH levels AS (
            SELECT p.accelerator_type, p.region, p.term, p.recommended_accelerators AS l,
                   p.recommended_cost, p.on_demand_per_hour AS od, p.committed_per_hour AS c,
                   unnest([p.recommended_accelerators - 1, p.recommended_accelerators,
                           p.recommended_accelerators + 1]) AS level
            FROM commitment_plan AS p
        )
        SELECT l.accelerator_type, l.region, l.term, l.l, l.level, l.recommended_cost,
               sum(l.level * CAST(l.c AS DOUBLE)
                   + greatest(0, d.demand_accelerator_hours - l.level) * CAST(l.od AS DOUBLE))
        FROM levels AS l
        JOIN commitment_demand_hourly AS d USING (accelerator_type, region)
        WHERE l.level >= 0
        GROUP BY ALL
        ORDER BY 1, 2, 3, 5
        """
    )
    assert rows
    by_plan: dict[tuple, dict[int, float]] = {}
    for kind, region, term, level, at, recommended_cost, cost in rows:
        by_plan.setdefault((kind, region, term, level, float(recommended_cost)), {})[at] = cost
    for (kind, region, term, level, recommended_cost), costs in by_plan.items():
        assert costs[level] == pytest.approx(recommended_cost, abs=1e-6), (kind, region, term)
        if level - 1 in costs:
            assert costs[level - 1] > costs[level] - 1e-9, (kind, region, term)
        assert costs[level + 1] >= costs[level] - 1e-6, (kind, region, term)


def test_today_commitment_is_the_last_hour_committed(marts: Marts) -> None:
    committed = marts.one(
        "SELECT sum(committed_nanos) / 3.6e12 FROM commitment_hourly "
        "WHERE hour = (SELECT max(hour) FROM commitment_hourly) "
        "AND resource_kind = 'H100-80GB'"
    )
    assert committed > 0
    now = marts.one(
        "SELECT sum(committed_now) FROM commitment_plan "
        "WHERE term = '1y' AND accelerator_type = 'H100-80GB'"
    )
    assert float(now) == pytest.approx(committed)


def test_flopledger_plan_commitments_prints_the_plan(marts: Marts) -> None:
    cli = [
        sys.executable,
        "-m",
        "flopledger.cli.main",
        "plan",
        "commitments",
        "--config",
        str(marts.config),
    ]
    done = subprocess.run([*cli, "--days", "2", "--term", "3y"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "3-year term, last 2 days" in done.stdout
    assert " 48 h;" in done.stdout  # two days of hours
    series = marts.rows("SELECT DISTINCT accelerator_type, region FROM commitment_plan")
    assert len(series) >= 2
    for kind, region in series:
        assert f"{kind} in {region}: commit to " in done.stdout
    bad = subprocess.run([*cli, "--days", "0"], capture_output=True, text=True)
    assert bad.returncode == 2 and "days must be 1 to 3660" in bad.stderr
    bad = subprocess.run([*cli, "--term", "5y"], capture_output=True, text=True)
    assert bad.returncode == 2 and "invalid choice" in bad.stderr


def test_a_bad_price_book_is_one_clear_line(marts: Marts, tmp_path: Path) -> None:
    book = tmp_path / "prices.csv"
    book.write_text(
        "accelerator_type,region,currency,on_demand_per_hour,commit_1y_per_hour,"
        "commit_3y_per_hour,source,as_of\nH100-80GB,us-central1,USD,lots,1,1,x,2026-10-01\n"
    )
    config = tmp_path / "flopledger.yaml"
    warehouse = load_config(marts.config).warehouse.path
    config.write_text(f"warehouse:\n  path: {warehouse}\nprice_book: {book}\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "flopledger.cli.main",
            "plan",
            "commitments",
            "--config",
            str(config),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"flopledger plan: {book}:2: on_demand_per_hour is not a number (got 'lots')"
    )


def test_demo_printout_has_the_plan(marts: Marts) -> None:
    config = load_config(marts.config)
    text = "\n".join(headline_lines(open_warehouse(config.warehouse), "USD"))
    assert "commitment plan: 1-year term, last 30 days" in text
    assert "H100-80GB in us-central1: commit to" in text


def test_commitments_page_shows_the_plan(open_page, marts: Marts) -> None:
    at = open_page("commitments")
    assert "Commitment plan" in [s.value for s in at.subheader]
    saves = marts.one(
        "SELECT sum(recommended_savings_vs_on_demand) FROM commitment_plan WHERE term = '1y'"
    )
    assert metric(at, "Plan savings against on demand, every type and region (USD)") == money(saves)
    frames = [d.value for d in at.dataframe if "recommended_accelerators" in d.value.columns]
    assert len(frames) == 1
    assert len(frames[0]) == marts.one("SELECT count(*) FROM commitment_plan WHERE term = '1y'")


def test_a_config_price_book_overrides_the_shipped_one(marts: Marts, tmp_path: Path) -> None:
    # Committed H100s at the on-demand price: a commitment never pays (break-even 100%), so
    # the plan is 0 and saves nothing; other types keep the shipped prices.
    book = tmp_path / "prices.csv"
    book.write_text(
        "accelerator_type,region,currency,on_demand_per_hour,commit_1y_per_hour,"
        "commit_3y_per_hour,source,as_of\n"
        "H100-80GB,us-central1,USD,10,10,10,negotiated,2026-12-01\n"
    )
    config = tmp_path / "flopledger.yaml"
    warehouse = load_config(marts.config).warehouse.path
    config.write_text(f"warehouse:\n  path: {warehouse}\nprice_book: {book}\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "flopledger.cli.main",
            "plan",
            "commitments",
            "--config",
            str(config),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "H100-80GB in us-central1: commit to 0 " in done.stdout
    assert "break-even utilisation 100%" in done.stdout
    assert "saves 0.00 against all on-demand" in done.stdout


def test_no_warehouse_yet_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "flopledger.yaml"
    config.write_text("warehouse:\n  path: w.duckdb\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "flopledger.cli.main",
            "plan",
            "commitments",
            "--config",
            str(config),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"flopledger plan: {tmp_path / 'w.duckdb'}: no warehouse yet (run `flopledger run` first)"
    )


def test_a_bad_price_book_flags_every_row_and_holds_nothing_back(fleet_copy: Path) -> None:
    """The asset (Dagster, as the marts job runs it) on a copy of the fleet whose config names
    an unreadable book: it succeeds, every row has no plan and says why."""
    import dagster as dg

    from flopledger.pipelines.marts.commitment_plan import commitment_plan
    from flopledger.pipelines.resources import Flopledger

    book = fleet_copy.parent / "prices.csv"
    book.write_text("accelerator_type,region\nH100-80GB,us-central1\n")
    fleet_copy.write_text(fleet_copy.read_text() + f"\nprice_book: {book}\n")
    result = dg.materialize(
        [commitment_plan], resources={"flopledger": Flopledger(config_path=str(fleet_copy))}
    )
    assert result.success
    warehouse = open_warehouse(load_config(fleet_copy).warehouse)
    rows = warehouse.query(
        "SELECT DISTINCT flag, recommended_accelerators FROM commitment_plan"
    ).to_pylist()
    assert rows == [
        {
            "flag": f"price book: {book}: missing columns currency, on_demand_per_hour, "
            "commit_1y_per_hour, commit_3y_per_hour, source, as_of",
            "recommended_accelerators": None,
        }
    ]
