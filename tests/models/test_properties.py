"""Properties over random simulated fleets: the books close, no run costs more than what it
held, and each run's accelerator-seconds equal the simulator's ground truth.

The simulator writes export, jobs and sacct files; the collectors read them into the raw
tables as the ingest assets do (billing rows new by row_id, so overlapping extracts count
once), and the marts are built from those tables without Dagster.
"""

import csv
from decimal import Decimal
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flopledger.collectors.gcp_billing.read import read_billing_files
from flopledger.collectors.jobs.read import read_jobs_files
from flopledger.settings import load_config
from flopledger.simulator import simulate
from tests.conftest import source_files
from tests.models.conftest import Books


def _truth_held(out: Path) -> dict[str, float]:
    with (out / "truth" / "run_costs.csv").open() as fh:
        return {r["run_id"]: float(r["held_accelerator_seconds"]) for r in csv.DictReader(fh)}


def _books_from_files(out: Path, config_path: Path) -> Books:
    config = load_config(config_path)
    books = Books(out)
    books.warehouse.ensure_schema()
    billing, stats = read_billing_files(source_files(config, "gcp_billing"))
    assert stats.rows_quarantined == 0
    books.warehouse.insert_new("billing_line_items", billing, "row_id")
    jobs = read_jobs_files(source_files(config, "jobs"))
    assert jobs.quarantined == []
    books.warehouse.replace_all("jobs", jobs.jobs)
    books.warehouse.replace_all("job_placements", jobs.placements)
    return books.build_marts()


@settings(
    max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    gpus=st.sampled_from([8, 16, 24, 40]),
    tpu_chips=st.sampled_from([0, 8, 16]),
    days=st.integers(min_value=1, max_value=2),
    seed=st.integers(min_value=0, max_value=10_000),
)
def test_random_fleets_close_the_books(tmp_path_factory, gpus, tpu_chips, days, seed):
    out = tmp_path_factory.mktemp("fleet")
    result = simulate(out, gpus=gpus, tpu_chips=tpu_chips, days=days, seed=seed, telemetry=False)
    books = _books_from_files(out, result.config_path)
    differences = books.rows("SELECT difference FROM books")
    assert differences and all(r["difference"] == Decimal(0) for r in differences)
    # No run costs more than the resource-hours it held (its direct rows aside).
    over = books.one(
        """WITH held AS (
               SELECT a.run_id, sum(p.effective_nanos) AS held_nanos, sum(a.allocated_nanos) AS got
               FROM run_allocation a
               JOIN resource_hour_pool p USING (project_id, resource_name, hour)
               WHERE p.effective_nanos >= 0
               GROUP BY a.run_id)
           SELECT count(*) AS n FROM held WHERE got > held_nanos"""
    )
    assert over == 0
    got = {
        r["run_id"]: r["s"]
        for r in books.rows("SELECT run_id, accelerator_hours * 3600 AS s FROM cost_per_run")
    }
    truth = _truth_held(out)
    assert truth  # every fleet has runs to check
    for run_id, seconds in truth.items():
        assert abs(got[run_id] - seconds) < 1e-3, run_id
