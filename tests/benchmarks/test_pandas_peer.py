"""The benchmark's pandas peer (benchmarks/pandas_peer.py) computes what the warehouse computes:
by hand on one resource-hour, and run by run against cost_per_run on a small simulated fleet."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from benchmarks.pandas_peer import run_costs

from flopledger.pipelines.runner import run_pipeline
from flopledger.settings import load_config
from flopledger.simulator import simulate
from flopledger.warehouse import open_warehouse
from tests.conftest import billing_row, run_record, write_ndjson

NANO = Decimal("0.000000001")


def _usd(costs) -> dict[str, Decimal]:
    return {run: Decimal(int(nanos)) * NANO for run, nanos in costs.items()}


def test_peer_allocates_one_resource_hour_by_hand(tmp_path: Path) -> None:
    """One VM-hour of 8 H100s: GPUs 16.00 + host 4.00 = 20.00 USD effective, 8 x 3,600 =
    28,800 accelerator-seconds paid. run-a holds 4 GPUs for the hour (14,400 s), run-b 8 GPUs
    for 45 minutes (21,600 s): 36,000 s claimed > 28,800 paid, so both are clipped pro rata:
    run-a 20 x 14,400 / 36,000 = 8.00, run-b 20 x 21,600 / 36,000 = 12.00. A bucket row of
    1.50 labelled run_id=run-a goes wholly to run-a: 9.50. A row naming no known run stays
    in the shared pool (no run gets it). A second extract repeating the GPU row adds nothing."""
    gpu = billing_row(cost=16.0, usage_seconds=28800)
    rows = [
        gpu,
        billing_row(sku="Core running in Americas", cost=4.0, usage_seconds=3600 * 208),
        billing_row(
            sku="Standard Storage US", resource="ckpt", cost=1.5, labels={"run_id": "run-a"}
        ),
        billing_row(
            sku="Standard Storage US", resource="ckpt", cost=2.0, labels={"run_id": "nope"}
        ),
    ]
    write_ndjson(tmp_path / "billing" / "a.ndjson", rows)
    write_ndjson(tmp_path / "billing" / "b-overlap.ndjson", [gpu])
    placement = {"resource_name": "a3-node-1", "project_id": "ml-prod"}
    write_ndjson(
        tmp_path / "jobs" / "runs.jsonl",
        [
            run_record("run-a", placements=[placement | {"accelerators": 4}]),
            run_record(
                "run-b",
                ended_at="2026-10-01T00:45:00Z",
                placements=[placement | {"accelerators": 8}],
            ),
        ],
    )
    assert _usd(run_costs(tmp_path, None)) == {
        "run-a": Decimal("9.500000000"),
        "run-b": Decimal("12.000000000"),
    }


def test_peer_costs_equal_cost_per_run_on_a_simulated_fleet(tmp_path: Path) -> None:
    """48 GPUs (6 VMs: a Slurm A3 Ultra VM in sacct.json, one in the EUR account, committed-use
    VMs, one that lives part of the window) and 8 TPU chips, 2 days: every run's cost from the
    peer equals cost_per_run.effective_cost exactly (to the nano-dollar)."""
    result = simulate(tmp_path / "sim", gpus=48, tpu_chips=8, days=2, seed=3, telemetry=False)
    assert (result.out_dir / "jobs" / "sacct.json").exists()
    report = run_pipeline(load_config(result.config_path), result.config_path)
    assert report.succeeded, report.failures
    house = {
        r["run_id"]: r["effective_cost"]
        for r in open_warehouse(report.config.warehouse)
        .query("SELECT run_id, effective_cost FROM cost_per_run")
        .to_pylist()
    }
    peer = _usd(run_costs(result.out_dir, None))
    assert len(house) == result.runs
    assert any(run.startswith("slurm-") for run in house)
    assert sum(house.values()) > 0
    assert peer == house
