"""A simulated GKE segment (`simulate --gke`) through the pipeline: pods as runs, MIG slices
included, every run costs what the simulator's truth implies and the books close."""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from pathlib import Path

from flopledger.pipelines.runner import run_pipeline
from flopledger.settings import load_config
from flopledger.simulator import simulate
from flopledger.warehouse import open_warehouse


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open() as fh:
        return list(csv.DictReader(fh))


def test_gke_segment_kubernetes_pods_and_mig_slices_cost_what_the_truth_implies(tmp_path):
    result = simulate(
        tmp_path / "sim", gpus=8, tpu_chips=0, days=2, seed=3, telemetry=False, gke=True
    )
    pods = json.loads((result.out_dir / "kubernetes" / "pods.json").read_text())
    assert pods["kind"] == "List" and len(pods["items"]) > 50
    report = run_pipeline(load_config(result.config_path), result.config_path)
    assert report.succeeded, report.failures
    books_errors = [c for c in report.failed_error_checks if c.asset != "budget_status"]
    assert not books_errors, books_errors
    warehouse = open_warehouse(report.config.warehouse)
    assert all(
        r["difference"] == 0 for r in warehouse.query("SELECT difference FROM books").to_pylist()
    )
    kinds = warehouse.query(
        """SELECT count(*) FILTER (WHERE j.scheduler = 'kubernetes') AS pods,
                  count(DISTINCT p.run_id) FILTER (WHERE p.share_denominator = 7) AS mig_runs
           FROM jobs AS j LEFT JOIN job_placements AS p USING (run_id)"""
    ).to_pylist()[0]
    assert kinds["pods"] > 50 and kinds["mig_runs"] > 20, kinds
    got = {
        r["run_id"]: r
        for r in warehouse.query(
            "SELECT run_id, effective_cost, direct_cost, accelerator_hours FROM cost_per_run"
        ).to_pylist()
    }
    truth = _csv(result.out_dir / "truth" / "run_costs.csv")
    gke = [r for r in truth if r["run_id"].startswith("gke-")]
    assert len(gke) > 50
    for run in truth:
        row = got[run["run_id"]]
        assert row["effective_cost"] == Decimal(run["effective_cost_usd"]), run["run_id"]
        assert row["direct_cost"] == Decimal(run["direct_cost_usd"]), run["run_id"]
        assert abs(row["accelerator_hours"] * 3600 - float(run["held_accelerator_seconds"])) < 1e-3
    # The pod that never scheduled is a run that held nothing (and is not in the truth).
    pending = warehouse.query(
        "SELECT status, started_at, effective_cost FROM cost_per_run WHERE run_id = 'gke-pending-1'"
    ).to_pylist()
    assert pending == [{"status": "running", "started_at": None, "effective_cost": Decimal(0)}]
    # GKE's cluster label reaches the node VMs' billing rows, which join the pods' placements.
    nodes = warehouse.query(
        """SELECT count(DISTINCT resource_name) AS n FROM billing_line_items
           WHERE labels['goog-k8s-cluster-name'] = 'acme-gke'"""
    ).to_pylist()[0]["n"]
    assert nodes == 3
