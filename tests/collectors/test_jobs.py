"""Run records from the jobs file (JSONL, CSV, Parquet) and from real sacct --json samples."""

import csv
import json
from datetime import date, datetime

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from flopledger.collectors.jobs.hostlist import expand_hostlist
from flopledger.collectors.jobs.read import read_jobs_files
from tests.conftest import FIXTURES, run_record, write_ndjson

SACCT = FIXTURES / "slurm_sacct_json"


def test_jsonl_run_and_its_placements(tmp_path):
    record = run_record(
        "run-1",
        accelerator_type="nvidia-h100-80gb",
        ended_at=None,
        status="running",
        placements=[
            {"resource_name": "vm-a", "accelerators": 8},
            {"resource_name": "vm-b", "accelerators": 4, "start": "2026-10-01T00:30:00Z"},
        ],
    )
    read = read_jobs_files([write_ndjson(tmp_path / "runs.jsonl", [record])])
    job = read.jobs.to_pylist()[0]
    assert job["accelerator_type"] == "H100-80GB"
    assert job["submitted_day"] == date(2026, 10, 1)
    assert job["ended_at"] is None
    held = {p["resource_name"]: p for p in read.placements.to_pylist()}
    assert held["vm-a"]["start_at"] == datetime(2026, 10, 1, 0, 0)  # defaults to the run's start
    assert held["vm-b"]["start_at"] == datetime(2026, 10, 1, 0, 30)
    assert held["vm-b"]["end_at"] is None  # running: open-ended


def test_bad_records_are_quarantined(tmp_path):
    rows = [
        run_record("ok"),
        run_record("bad-class", workload_class="fun"),
        run_record("bad-status", status="done"),
        run_record("backwards", started_at="2026-10-01T02:00:00Z", ended_at="2026-10-01T01:00:00Z"),
        run_record("no-end", ended_at=None),
        run_record("bad-acc", accelerator_type="abacus"),
        {"job_id": "no-run-id"},
        run_record("bad-tokens", tokens_in=-5),
        "nonsense",
    ]
    read = read_jobs_files([write_ndjson(tmp_path / "runs.jsonl", rows)])
    reasons = {q.line: q.reason for q in read.quarantined}
    assert read.jobs["run_id"].to_pylist() == ["ok"]
    assert read.rows_read == 9 == read.jobs.num_rows + len(read.quarantined)
    assert reasons[2].startswith("workload_class: 'fun' is not one of")
    assert reasons[3].startswith("status: 'done' is not one of")
    assert reasons[4].startswith("the run ends before it starts")
    assert reasons[5] == "status is succeeded but ended_at is missing"
    assert reasons[6] == "accelerator_type: unknown accelerator 'abacus'"
    assert reasons[7] == "run_id is required"
    assert reasons[8] == "tokens_in: -5 is not a whole number >= 0"
    assert reasons[9].startswith("not valid JSON")


def test_a_later_record_of_the_same_run_wins(tmp_path):
    first = run_record("r", status="running", ended_at=None)
    later = run_record("r", status="succeeded", ended_at="2026-10-01T03:00:00Z")
    read = read_jobs_files([write_ndjson(tmp_path / "runs.jsonl", [first, later])])
    assert read.jobs["status"].to_pylist() == ["succeeded"]


def test_csv_and_parquet_jobs_files(tmp_path):
    record = run_record("csv-1", labels={"k": "v"})
    path = tmp_path / "runs.csv"
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(record))
        writer.writeheader()
        writer.writerow(
            {k: json.dumps(v) if isinstance(v, (dict, list)) else v for k, v in record.items()}
        )
    parquet = tmp_path / "runs.parquet"
    pq.write_table(pa.Table.from_pylist([run_record("pq-1", labels={"env": "prod"})]), parquet)
    read = read_jobs_files([path, parquet])
    assert not read.quarantined
    assert read.jobs["run_id"].to_pylist() == ["csv-1", "pq-1"]
    assert read.jobs["labels"].to_pylist()[0] == [("k", "v")]
    assert read.jobs["tokens_in"].to_pylist() == [1_000_000, 1_000_000]


@pytest.mark.parametrize(
    ("expr", "hosts"),
    [
        ("ng[30103,30203,30706-30707]", ["ng30103", "ng30203", "ng30706", "ng30707"]),
        ("gpu[01-03],cpu1", ["gpu01", "gpu02", "gpu03", "cpu1"]),
        ("gpu1", ["gpu1"]),
        ("None assigned", []),
    ],
)
def test_hostlist(expr, hosts):
    assert expand_hostlist(expr) == hosts


def _sacct(name):
    return read_jobs_files([SACCT / name])


def test_sacct_2205_array_job_on_four_nodes_with_16_gpus():
    read = _sacct("sacct_json_slurm-22.05.9_openapi-dbv0.0.38_array_multinode_16gpu.json")
    job = read.jobs.to_pylist()[0]
    assert job["status"] == "failed"  # state.current "FAILED" (a plain string before v0.0.40)
    assert job["accelerator_count"] == 16  # tres.allocated gres/gpu count
    assert job["scheduler"] == "slurm"
    # nodes "ng[30103,30203,30706-30707]": 16 GPUs / 4 nodes = 4 each.
    held = sorted((p["resource_name"], p["accelerators"]) for p in read.placements.to_pylist())
    assert held == [("ng30103", 4), ("ng30203", 4), ("ng30706", 4), ("ng30707", 4)]


def test_sacct_same_job_on_two_versions_maps_the_same():
    old = _sacct("sacct_json_slurm-23.02.6_data_parser-v0.0.39_gpu.json").jobs.to_pylist()[0]
    new = _sacct("sacct_json_slurm-23.11.5_data_parser-v0.0.40_gpu.json").jobs.to_pylist()[0]
    for key in (
        "run_id",
        "status",
        "submitted_at",
        "started_at",
        "ended_at",
        "accelerator_count",
        "team",
    ):
        assert old[key] == new[key], key
    # A RUNNING job: time.end is 0, so ended_at is null; state is a string in v0.0.39, a list in v0.0.40.
    assert new["status"] == "running" and new["ended_at"] is None
    assert new["accelerator_count"] == 2


def test_sacct_newer_versions_without_gpu_tres():
    for name in (
        "slurmrestd_slurmdb_job_slurm-24.11.5_data_parser-v0.0.42_with_steps.json",
        "slurmrestd_slurmdb_job_slurm-25.11.0_data_parser-v0.0.44_with_steps.json",
    ):
        read = _sacct(name)
        assert read.jobs.num_rows >= 1
        assert read.rows_read == read.jobs.num_rows + len(read.quarantined)
        job = read.jobs.to_pylist()[0]
        assert job["status"] in {"succeeded", "failed", "cancelled", "running"}
        assert job["accelerator_count"] == 0  # that test cluster does not track gres/gpu


def test_absurd_numbers_and_odd_sacct_shapes_are_quarantined(tmp_path):
    rows = [
        run_record("inf", tokens_in="Infinity"),
        run_record("huge", tokens_in=10**30),
        run_record("ok"),
    ]
    read = read_jobs_files([write_ndjson(tmp_path / "runs.jsonl", rows)])
    assert read.jobs["run_id"].to_pylist() == ["ok"]
    assert [q.reason for q in read.quarantined] == [
        "tokens_in: 'Infinity' is not a whole number >= 0",
        f"tokens_in: {10**30} does not fit its BIGINT column",
    ]
    sacct = {
        "meta": {},
        "errors": [],
        "jobs": [
            {
                "job_id": 1,
                "state": {"current": ["COMPLETED"]},
                "tres": {"allocated": ["gpu"]},
                "time": {},
            },
            {"job_id": 2, "state": {"current": "COMPLETED"}, "time": {"submission": {"set": True}}},
        ],
    }
    path = tmp_path / "sacct.json"
    path.write_text(json.dumps(sacct))
    read = read_jobs_files([path])
    assert read.jobs.num_rows == 0 and len(read.quarantined) == 2
    assert all(q.reason.startswith("sacct job") for q in read.quarantined)


def test_a_run_may_list_one_resource_twice(tmp_path):
    record = run_record("r", placements=[{"resource_name": "vm", "accelerators": 4}] * 2)
    read = read_jobs_files([write_ndjson(tmp_path / "runs.jsonl", [record])])
    ids = read.placements["placement_id"].to_pylist()
    assert len(ids) == 2 and len(set(ids)) == 2
