"""Hostile run records (the jobs file and `sacct --json`): loaded, a duplicate, or quarantined
with the reason; never a traceback, never an unbounded hostlist."""

from __future__ import annotations

import json

import pytest

from flopledger.collectors.jobs.read import read_jobs_files
from tests.conftest import run_record
from tests.hostile.hostile import DUPLICATE, LOADED, Case, bounded, check, write_lines

PLACE = [{"resource_name": "a3-node-1", "accelerators": 8}]

CASES = [
    Case("a plain run", run_record("ok-1"), LOADED),
    Case("tokens_in 2^63 (past BIGINT)", run_record("big-1", tokens_in=2**63), "BIGINT"),
    Case("tokens_in 2^63 - 1 fits", run_record("big-2", tokens_in=2**63 - 1), LOADED),
    Case(
        "accelerator_count 2^31 (past INTEGER)",
        run_record("big-3", accelerator_count=2**31),
        "INTEGER",
    ),
    Case("attempt 2^31", run_record("big-4", attempt=2**31), "attempt"),
    Case(
        "placement accelerators 2^31",
        run_record("big-5", placements=[{"resource_name": "n", "accelerators": 2**31}]),
        "INTEGER",
    ),
    Case("model_flops NaN", run_record("nan-1", model_flops="NaN"), "not a finite number"),
    Case(
        "model_flops 1e400 (inf as a float)",
        run_record("inf-1", model_flops=1e300 * 1e300),
        "finite",
    ),
    Case("model_params negative", run_record("neg-1", model_params=-1), "whole number >= 0"),
    Case(
        "submitted in year 9999",
        run_record("y-1", submitted_at="9999-01-01T00:00:00Z", started_at=None, ended_at=None),
        "submitted_at: 9999-01-01T00:00:00 is outside the plausible window",
    ),
    Case("submitted in 1970", run_record("y-2", submitted_at=0), "outside the plausible window"),
    Case(
        "a placement ending in 2999",
        run_record("y-3", placements=[{**PLACE[0], "end": "2999-01-01T00:00:00Z"}]),
        "placements[0].end",
    ),
    Case(
        "5,000 placements (past max_nodes_per_job)",
        run_record(
            "wide-1",
            placements=[{"resource_name": f"n{i}", "accelerators": 1} for i in range(5000)],
        ),
        "more than limits.max_nodes_per_job",
    ),
    Case(
        "status unknown", run_record("st-1", status="exploded"), "status: 'exploded' is not one of"
    ),
    Case(
        "ends before it starts",
        run_record("t-1", ended_at="2026-09-30T00:00:00Z"),
        "ends before it starts",
    ),
    Case("labels a list of numbers", run_record("l-1", labels=[1, 2]), "labels"),
    Case("not an object", "[1, 2, 3]", "expected an object"),
    Case("a torn line", '{"run_id": "x", "submitted', "not valid JSON"),
    Case("invalid UTF-8 in team", b'{"run_id": "u-1", "team": "llm\xff"}', "invalid UTF-8"),
    Case(
        "the same run_id, earlier state",
        run_record("dup-1", status="running", ended_at=None),
        DUPLICATE,
    ),
    Case("the same run_id, newest state", run_record("dup-1"), LOADED),
]

HOSTS_BOMB = "n[0-99999999]"


def _sacct_job(job_id, nodes="gpu[01-02]", **changes):
    job = {
        "job_id": job_id,
        "account": "llm",
        "cluster": "c1",
        "state": {"current": ["COMPLETED"]},
        "time": {"submission": 1790812800, "start": 1790812800, "end": 1790816400},
        "nodes": nodes,
        "tres": {"allocated": [{"type": "gres", "name": "gpu", "count": 4}]},
    }
    job.update(changes)
    return job


SACCT = [
    Case("a plain Slurm job", _sacct_job(1), LOADED),
    Case("a job entry that is a string", "not a job", "must be an object"),
    Case("a job entry that is null", None, "must be an object"),
    Case(
        "hostlist n[0-99999999] (24 GB expanded)",
        _sacct_job(2, nodes=HOSTS_BOMB),
        "100,000,000 hosts",
    ),
    Case("hostlist range backwards", _sacct_job(3, nodes="n[9-1]"), "ends before it starts"),
    Case("hostlist garbage range", _sacct_job(4, nodes="n[a-b]"), "bad hostlist range"),
    Case(
        "submission epoch 10^30",
        _sacct_job(5, time={"submission": 10**30, "start": 0, "end": 0}),
        "submitted_at",
    ),
    Case("a pending job", _sacct_job(6, state={"current": ["PENDING"]}), "pending"),
    Case("state unknown", _sacct_job(7, state={"current": "MELTED"}), "unknown Slurm state"),
]


@pytest.fixture(scope="module")
def read(tmp_path_factory):
    folder = tmp_path_factory.mktemp("jobs")
    runs = write_lines(folder / "a_runs.jsonl", CASES)
    document = {"meta": {}, "errors": [], "jobs": [c.line for c in SACCT]}
    sacct = folder / "b_sacct.json"
    sacct.write_bytes(b"\xef\xbb\xbf" + json.dumps(document).encode())  # with a BOM
    result = bounded(lambda: read_jobs_files([runs, sacct]))  # n[0-99999999] never expanded
    return result, runs, sacct


def _outcomes(result, path):
    loaded = {r["source_line"] for r in result.jobs.to_pylist() if r["source"] == str(path)}
    reasons = {q.line: q.reason for q in result.quarantined if q.file == str(path)}
    return loaded, reasons


@pytest.mark.parametrize("number", range(len(CASES)), ids=[c.name for c in CASES])
def test_each_jobs_file_case(read, number):
    result, runs, _ = read
    loaded, reasons = _outcomes(result, runs)
    # The earlier state of dup-1 (line 20) is replaced by its newest (line 21): a duplicate.
    dupes = {20} if result.duplicates == 1 and 21 in loaded else set()
    check(CASES[number], loaded, reasons, number + 1, dupes)


@pytest.mark.parametrize("number", range(len(SACCT)), ids=[c.name for c in SACCT])
def test_each_sacct_case(read, number):
    result, _, sacct = read
    loaded, reasons = _outcomes(result, sacct)
    check(SACCT[number], loaded, reasons, number + 1)


def test_every_record_is_counted_once_and_the_hostlist_bomb_is_cheap(read):
    """Cheap: the read that built `read` did a bounded amount of work (hostile.bounded)."""
    result, *_ = read
    # 21 jobs-file lines + 9 sacct jobs = 30 read = runs + quarantined + 1 duplicate.
    assert result.rows_read == len(CASES) + len(SACCT) == 30
    assert result.rows_read == result.jobs.num_rows + len(result.quarantined) + result.duplicates
    assert result.duplicates == 1
