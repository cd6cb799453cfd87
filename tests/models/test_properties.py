"""Properties over random simulated fleets: the books close, no run costs more than what it
held, and each run's accelerator-seconds equal the simulator's ground truth."""

import csv
from decimal import Decimal
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from settings import load_config
from pipelines.runner import run_pipeline
from simulator import simulate


def _truth_held(out: Path) -> dict[str, float]:
    with (out / "truth" / "run_costs.csv").open() as fh:
        return {r["run_id"]: float(r["held_accelerator_seconds"]) for r in csv.DictReader(fh)}


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    gpus=st.sampled_from([8, 16, 24, 40]),
    tpu_chips=st.sampled_from([0, 8, 16]),
    days=st.integers(min_value=1, max_value=2),
    seed=st.integers(min_value=0, max_value=10_000),
)
def test_random_fleets_close_the_books(tmp_path_factory, gpus, tpu_chips, days, seed):
    out = tmp_path_factory.mktemp("fleet")
    result = simulate(out, gpus=gpus, tpu_chips=tpu_chips, days=days, seed=seed, telemetry=False)
    report = run_pipeline(load_config(result.config_path), result.config_path)
    assert report.succeeded, report.failures
    warehouse = report.warehouse()
    differences = warehouse.query("SELECT difference FROM books").to_pylist()
    assert differences and all(r["difference"] == Decimal(0) for r in differences)
    # No run costs more than the resource-hours it held (its direct rows aside).
    over = warehouse.query(
        """WITH held AS (
               SELECT a.run_id, sum(p.effective_nanos) AS held_nanos, sum(a.allocated_nanos) AS got
               FROM run_allocation a JOIN resource_hour_pool p USING (project_id, resource_name, hour)
               WHERE p.effective_nanos >= 0
               GROUP BY a.run_id)
           SELECT count(*) AS n FROM held WHERE got > held_nanos"""
    ).to_pylist()[0]["n"]
    assert over == 0
    got = {r["run_id"]: r["s"] for r in warehouse.query(
        "SELECT run_id, accelerator_hours * 3600 AS s FROM cost_per_run").to_pylist()}
    for run_id, seconds in _truth_held(out).items():
        assert abs(got[run_id] - seconds) < 1e-3, run_id
