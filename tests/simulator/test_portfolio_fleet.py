"""On a simulated fleet the accelerator portfolio is filled: its cost per family and class sums
to the runs' cost as the simulator's own truth has it, and a model shows on a TPU and a GPU
side by side (issue 22). The fleet is one whose draw put no model on both before the simulator
made sure of one (8 GPUs, 8 chips, one day, seed 3)."""

from __future__ import annotations

import csv
from decimal import Decimal
from pathlib import Path

from flopledger.pipelines.runner import run_pipeline
from flopledger.settings import load_config
from flopledger.simulator import simulate
from flopledger.warehouse import open_warehouse


def test_the_portfolio_of_a_small_fleet_sums_to_the_truth(tmp_path: Path) -> None:
    result = simulate(tmp_path / "sim", gpus=8, tpu_chips=8, days=1, seed=3, telemetry=True)
    report = run_pipeline(load_config(result.config_path), result.config_path)
    assert report.succeeded, report.failures
    warehouse = open_warehouse(report.config.warehouse)
    with (result.out_dir / "truth" / "run_costs.csv").open() as fh:
        truth = sum(Decimal(r["effective_cost_usd"]) for r in csv.DictReader(fh))
    rows = warehouse.query(
        "SELECT venue, family, effective_cost FROM accelerator_portfolio"
    ).to_pylist()
    self_hosted = [r for r in rows if r["venue"] == "self_hosted"]
    assert sum(r["effective_cost"] for r in self_hosted) == truth
    families = {r["family"] for r in self_hosted}
    assert any(f.startswith("TPU-") for f in families)
    assert any(not f.startswith("TPU-") for f in families)
    side_by_side = warehouse.query(
        "SELECT model, family FROM model_portfolio WHERE venue = 'self_hosted'"
    ).to_pylist()
    by_model: dict[str, set[str]] = {}
    for r in side_by_side:
        by_model.setdefault(r["model"], set()).add(r["family"])
    assert any(
        any(f.startswith("TPU-") for f in fams) and any(not f.startswith("TPU-") for f in fams)
        for fams in by_model.values()
    ), by_model
