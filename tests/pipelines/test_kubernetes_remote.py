"""The pods source from gs:// (the shared input layer, against the Cloud Storage emulator):
a simulated GKE segment whose kubectl output lives in a bucket books as from disk."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from flopledger.pipelines.runner import run_pipeline
from flopledger.settings import load_config
from flopledger.simulator import simulate
from flopledger.warehouse import open_warehouse
from tests.gcs_emulator import Emulator, running_emulator


@pytest.fixture
def gcs(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    with running_emulator(monkeypatch) as emulator:
        yield emulator


def test_kubernetes_pods_from_gs_cost_what_the_truth_implies(gcs: Emulator, tmp_path: Path) -> None:
    result = simulate(
        tmp_path / "sim", gpus=0, tpu_chips=0, days=1, seed=4, telemetry=False, gke=True
    )
    assert gcs.upload_tree(result.out_dir / "kubernetes", "fleet", "kubernetes") == 1
    text = result.config_path.read_text()
    assert '"kubernetes/*.json"' in text
    result.config_path.write_text(text.replace('"kubernetes/', '"gs://fleet/kubernetes/'))
    (result.out_dir / "kubernetes" / "pods.json").unlink()  # only the bucket has it now
    report = run_pipeline(load_config(result.config_path), result.config_path)
    assert report.succeeded, report.failures
    warehouse = open_warehouse(report.config.warehouse)
    sources = warehouse.query(
        "SELECT DISTINCT source FROM jobs WHERE scheduler = 'kubernetes'"
    ).to_pylist()
    assert sources == [{"source": "gs://fleet/kubernetes/pods.json"}]
    got = {
        r["run_id"]: r["effective_cost"]
        for r in warehouse.query("SELECT run_id, effective_cost FROM cost_per_run").to_pylist()
    }
    with (result.out_dir / "truth" / "run_costs.csv").open() as fh:
        truth = list(csv.DictReader(fh))
    assert len(truth) > 20 and all(r["run_id"].startswith("gke-") for r in truth)
    for run in truth:
        assert got[run["run_id"]] == Decimal(run["effective_cost_usd"]), run["run_id"]
