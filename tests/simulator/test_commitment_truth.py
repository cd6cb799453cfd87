"""A simulated fleet with a commitment (only partly used) and an unused reservation: the marts
against the simulator's own arithmetic (simulator/truth.py), run by run and day by day.

The collectors read the simulator's files into the raw tables and the marts are built without
Dagster (as tests/models/test_properties.py does)."""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from pathlib import Path

from flopledger.collectors.gcp_billing.read import read_billing_files
from flopledger.collectors.jobs.read import read_jobs_files
from flopledger.settings import load_config
from flopledger.simulator import simulate
from flopledger.simulator.billing import COMMITMENT_NAME, RESERVATION_NAME
from tests.conftest import source_files
from tests.models.conftest import Books


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open() as fh:
        return list(csv.DictReader(fh))


def test_runs_and_commitment_utilisation_equal_the_truth(tmp_path: Path) -> None:
    # 48 GPUs = 6 VMs; VMs 0 and 4 (H100s) are committed all the time and VM 5 while it exists
    # (it lives part of the period): the commitment is 8 x 3 + 4 = 28 GPUs.
    out = tmp_path / "sim"
    result = simulate(out, gpus=48, tpu_chips=8, days=2, seed=3, telemetry=False)
    config = load_config(result.config_path)
    books = Books(out)
    books.warehouse.ensure_schema()
    billing, stats = read_billing_files(source_files(config, "gcp_billing"))
    assert stats.rows_quarantined == 0
    books.warehouse.insert_new("billing_line_items", billing, "row_id")
    jobs = read_jobs_files(source_files(config, "jobs"))
    books.warehouse.replace_all("jobs", jobs.jobs)
    books.warehouse.replace_all("job_placements", jobs.placements)
    books.build_marts()

    assert all(r["difference"] == 0 for r in books.rows("SELECT difference FROM books"))
    got = {r["run_id"]: r["effective_cost"] for r in books.rows("SELECT * FROM cost_per_run")}
    truth_runs = _csv(out / "truth" / "run_costs.csv")
    assert len(truth_runs) > 10
    for run in truth_runs:
        assert got[run["run_id"]] == Decimal(run["effective_cost_usd"]), run["run_id"]

    truth_days = _csv(out / "truth" / "commitments.csv")
    assert [t["commitment_id"] for t in truth_days] == [COMMITMENT_NAME] * 2
    days = books.rows("SELECT * FROM commitment_utilisation ORDER BY day")
    assert len(days) == 2
    for day, truth in zip(days, truth_days, strict=True):
        assert str(day["day"]) == truth["day"]
        assert day["commitment_id"] == COMMITMENT_NAME
        committed = Decimal(truth["committed_accelerator_seconds"]) / 3600
        used = Decimal(truth["used_accelerator_seconds"]) / 3600
        assert committed == 28 * 24  # 28 GPUs x 24 hours
        assert day["committed_accelerator_hours"] == float(committed)
        assert day["used_accelerator_hours"] == float(used)
        assert day["fee"] == Decimal(truth["fee_usd"])
        assert day["unused_cost"] == Decimal(truth["unused_cost_usd"])
        assert 0 < day["utilisation_pct"] < 100  # only partly used

    # Partly used, and less in the hours VM 5 does not exist.
    used_levels = books.one("SELECT count(DISTINCT used_nanos) FROM commitment_hourly")
    assert used_levels > 1

    totals = json.loads((out / "truth" / "totals.json").read_text())
    unused = {
        r["idle_kind"]: r["cost"]
        for r in books.rows(
            "SELECT idle_kind, sum(unused_cost) AS cost FROM unused_capacity GROUP BY 1"
        )
    }
    assert unused["unused_commitment"] == Decimal(totals["unused_commitment_usd"]) > 0
    assert unused["unused_reservation"] == Decimal(totals["unused_reservation_usd"]) > 0
    names = books.rows(
        "SELECT DISTINCT name FROM unused_capacity WHERE idle_kind = 'unused_reservation'"
    )
    assert names == [{"name": RESERVATION_NAME}]
    # Neither the commitment nor the reservation is a machine with idle accelerators.
    assert (
        books.rows(
            "SELECT * FROM idle_capacity WHERE resource_name IN (?, ?)",
            [COMMITMENT_NAME, RESERVATION_NAME],
        )
        == []
    )
