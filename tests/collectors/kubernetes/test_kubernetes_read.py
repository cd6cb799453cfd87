"""Saved `kubectl get pods -A -o json` output and the watcher's files into runs and placements."""

from __future__ import annotations

import json
from datetime import datetime

import pyarrow.compute as pc
import pytest
from k8s_fakes import pod

from flopledger.collectors.kubernetes.pods import pod_record
from flopledger.collectors.kubernetes.read import read_pod_files

H100 = {"cloud.google.com/gke-accelerator": "nvidia-h100-80gb"}
T0 = "2026-10-01T00:00:00Z"


def _kubectl(tmp_path, items, name="pods.json"):
    """What `kubectl get pods -A -o json` writes: a v1 List of Pods."""
    path = tmp_path / name
    path.write_text(json.dumps({"apiVersion": "v1", "items": items, "kind": "List",
                                "metadata": {"resourceVersion": ""}}, indent=4))  # fmt: skip
    return path


def _running(name, node, **kw):
    return pod(name, created=T0, scheduled="2026-10-01T00:02:00Z", started="2026-10-01T00:03:00Z",
               node=node, phase="Running", node_selector=kw.pop("node_selector", H100), **kw)  # fmt: skip


def test_kubernetes_kubectl_output_makes_runs_jobset_mig_tpu(tmp_path):
    jobset = {"run_id": "pt-7", "team": "llm", "jobset.sigs.k8s.io/jobset-name": "pt-7",
              "model_name": "llama-70b", "workload_class": "pretraining"}  # fmt: skip
    tokens = {"flopledger.io/tokens-in": "5000000", "flopledger.io/model-params": "70600000000"}
    items = [
        _running("pt-7-workers-0-0", "gke-a3-pool-1", labels=jobset, annotations=tokens),
        _running("pt-7-workers-0-1", "gke-a3-pool-2", labels=jobset),
        # GKE MIG: nvidia.com/gpu on a node selected by its partition size: 2 slices of 3g.40gb.
        _running(
            "serve-1",
            "gke-mig-pool-1",
            labels={"team": "serving"},
            node_selector={**H100, "cloud.google.com/gke-gpu-partition-size": "3g.40gb"},
            resources={"limits": {"nvidia.com/gpu": "2"}},
        ),  # fmt: skip
        _running(
            "tpu-job-0",
            "gke-tpu-5p-1",
            labels={"run_id": "tpu-1"},
            node_selector={"cloud.google.com/gke-tpu-accelerator": "tpu-v5p-slice"},
            resources={"limits": {"google.com/tpu": "4"}},
        ),  # fmt: skip
        _running("web-1", "gke-cpu-1", resources={"requests": {"cpu": "2"}}),  # no accelerator
    ]
    read = read_pod_files([_kubectl(tmp_path, items)])
    assert read.quarantined == []
    assert (read.rows_read, read.pods, read.pods_skipped) == (5, 5, 1)
    runs = {r["run_id"]: r for r in read.jobs.to_pylist()}
    assert sorted(runs) == ["ml-research/serve-1", "pt-7", "tpu-1"]
    pt = runs["pt-7"]
    # Two 8-GPU hosts, one run; created 00:00, scheduled 00:02 (queue 120 s), still running.
    assert (pt["accelerator_count"], pt["status"], pt["ended_at"]) == (16, "running", None)
    assert (pt["started_at"] - pt["submitted_at"]).total_seconds() == 120
    assert (pt["job_id"], pt["model_name"], pt["tokens_in"], pt["model_params"]) == (
        "ml-research/pt-7",
        "llama-70b",
        5_000_000,
        70_600_000_000,
    )
    assert dict(pt["labels"])["k8s_owner"] == "JobSet/pt-7"
    assert runs["tpu-1"]["accelerator_type"] == "TPU-v5p"
    assert runs["ml-research/serve-1"]["team"] == "serving"
    held = sorted((p["run_id"], p["resource_name"], p["accelerators"], p["share_numerator"],
                   p["share_denominator"], p["end_at"]) for p in read.placements.to_pylist())  # fmt: skip
    assert held == [
        ("ml-research/serve-1", "gke-mig-pool-1", 2, 3, 7, None),
        ("pt-7", "gke-a3-pool-1", 8, None, None, None),
        ("pt-7", "gke-a3-pool-2", 8, None, None, None),
        ("tpu-1", "gke-tpu-5p-1", 4, None, None, None),
    ]


def test_kubernetes_label_keys_are_configurable(tmp_path):
    items = [_running("a", "n1", labels={"acme.io/run": "r-1", "acme.io/owner": "vision"})]
    read = read_pod_files(
        [_kubectl(tmp_path, items)], {"run": "acme.io/run", "team": "acme.io/owner"}
    )
    (run,) = read.jobs.to_pylist()
    assert (run["run_id"], run["team"]) == ("r-1", "vision")
    with pytest.raises(ValueError, match="unknown pod label role"):
        read_pod_files([], {"runn": "x"})


def test_kubernetes_bad_input_is_quarantined_with_a_reason(tmp_path):
    items = [
        {"kind": "Service", "apiVersion": "v1", "metadata": {"name": "s", "uid": "u-s"}},
        _running("half", "n1", resources={"limits": {"nvidia.com/mig-1g.10gb": "1.5"}}),
        _running("odd", "n2", node_selector={"cloud.google.com/gke-accelerator": "nvidia-z9000"}),
        _running("ok", "n3"),
    ]
    lines = tmp_path / "pods-20261001T000000000000Z-000001.jsonl"
    good = pod_record(
        _running("w", "n4", labels={"run_id": "w-1"}), "ADDED", "2026-10-01T00:05:00.000000Z"
    )
    lines.write_text("not json\n" + json.dumps({"record": "node"}) + "\n" + json.dumps(good) + "\n")
    read = read_pod_files([_kubectl(tmp_path, items), lines])
    reasons = sorted(q.reason for q in read.quarantined)
    assert reasons == [
        "items[0]: kind is 'Service', not Pod",
        "items[1]: accelerator quantity '1.5' is not a whole number",
        'not a pod lifecycle record ({"record": "pod", ...})',
        "not valid JSON (Expecting value)",
        "run ml-research/odd: accelerator_type: unknown accelerator 'nvidia-z9000'",
    ]
    assert sorted(r["run_id"] for r in read.jobs.to_pylist()) == ["ml-research/ok", "w-1"]


def test_kubernetes_newest_record_of_a_pod_wins(tmp_path):
    # The same pod listed by kubectl (no observed time) and later seen Succeeded by the watcher.
    item = _running("a", "n1", labels={"run_id": "r"})
    done = pod_record(
        pod(
            "a",
            created=T0,
            scheduled="2026-10-01T00:02:00Z",
            started="2026-10-01T00:03:00Z",
            finished="2026-10-01T01:00:00Z",
            node="n1",
            phase="Succeeded",
            node_selector=H100,
            labels={"run_id": "r"},
        ),  # fmt: skip
        "MODIFIED",
        "2026-10-01T01:00:05.000000Z",
    )
    watched = tmp_path / "pods-20261001T010005000000Z-000001.jsonl"
    watched.write_text(json.dumps(done) + "\n")
    # Either file order: the record observed later wins over the unobserved listing.
    for files in ([_kubectl(tmp_path, [item]), watched], [watched, _kubectl(tmp_path, [item])]):
        (run,) = read_pod_files(files).jobs.to_pylist()
        assert (run["status"], run["ended_at"]) == ("succeeded", datetime(2026, 10, 1, 1, 0))


def test_kubernetes_hostile_lifecycle_records_are_quarantined(tmp_path):
    good = pod_record(
        _running("g", "n1", labels={"run_id": "g-1"}), "ADDED", "2026-10-01T00:05:00.000000Z"
    )
    bad = [
        {**good, "uid": 7},
        {**good, "requests": ["nvidia.com/gpu"]},
        {**good, "requests": {"nvidia.com/gpu": -1}},
        {**good, "requests": {"nvidia.com/gpu": True}},
        {**good, "node_selector": "gke"},
        {**good, "labels": {"run_id": 5}},
        {**good, "scheduled_at": 12},
        {**good, "exit_code": "1"},
        {**good, "scheduled_at": "yesterday"},  # a string, but not a time: the run is refused
        [good],
        "pod",
    ]
    path = tmp_path / "pods-20261001T000500000000Z-000001.jsonl"
    path.write_text("".join(json.dumps(b) + "\n" for b in bad) + "\n\x00\xff\n")
    read = read_pod_files([path])
    assert read.jobs.num_rows == 0
    reasons = [q.reason for q in read.quarantined]
    assert reasons[:8] == [
        "uid: a non-empty string is required",
        "requests: expected a map of resource name to a whole number >= 0",
        "requests: expected a map of resource name to a whole number >= 0",
        "requests: expected a map of resource name to a whole number >= 0",
        "node_selector: expected a map of string to string",
        "labels: expected a map of string to string",
        "scheduled_at: expected a string or null",
        "exit_code: expected a whole number or null",
    ]
    # Then the two non-objects and the line of control bytes; the bad time fails the run.
    assert reasons[8:10] == ['not a pod lifecycle record ({"record": "pod", ...})'] * 2
    assert reasons[10].startswith("not valid JSON")
    assert reasons[11].startswith("run g-1: started_at:"), reasons[11]
    # Hostile Pod objects in kubectl output: wrong types anywhere are refused, never a crash.
    items = [
        {**_running("a", "n1"), "spec": {"containers": 5}},
        {**_running("b", "n1"), "status": {"conditions": 7, "phase": "Running"}},
        {"kind": "Pod", "metadata": {"uid": "u", "name": "c", "creationTimestamp": 1}, "spec": {}},
        {"kind": "Pod", "metadata": {"uid": "u2", "name": ["d"]}},
    ]
    refused = read_pod_files([_kubectl(tmp_path, items)]).quarantined
    assert [q.reason.split(":")[0] for q in refused] == [
        "items[0]",
        "items[1]",
        "items[2]",
        "items[3]",
    ]
    # A binary file is one quarantine row, not a crash.
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b"\xff\xfe\x00garbage")
    assert [q.reason for q in read_pod_files([junk]).quarantined] == ["not UTF-8 text"]


def test_kubernetes_runs_join_the_jobs_file_and_a_clash_is_quarantined(tmp_path):
    from flopledger.collectors.jobs.read import read_jobs_files
    from flopledger.collectors.kubernetes.read import merge_runs

    jobs_file = tmp_path / "runs.jsonl"
    jobs_file.write_text(json.dumps({"run_id": "r-1", "submitted_at": T0, "status": "running",
                                     "workload_class": "other", "started_at": T0}) + "\n"
                         + json.dumps({"run_id": "bad", "status": "?"}) + "\n")  # fmt: skip
    items = [
        _running("a", "n1", labels={"run_id": "r-1"}),
        _running("b", "n2", labels={"run_id": "r-2"}),
    ]
    jobs = read_jobs_files([jobs_file])
    runs, placements, quarantined = merge_runs(jobs, read_pod_files([_kubectl(tmp_path, items)]))
    assert sorted(runs["run_id"].to_pylist()) == ["r-1", "r-2"]
    assert runs.filter(pc.equal(runs["run_id"], "r-1"))["scheduler"].to_pylist() == ["jobs_file"]
    assert placements["run_id"].to_pylist() == ["r-2"]
    # The jobs file's own quarantine is kept, the clash is added.
    assert [q.reason for q in quarantined] == [
        "submitted_at is required",
        "run r-1: its run_id is also in the jobs file or sacct",
    ]


def test_kubernetes_a_later_snapshot_beats_an_older_watcher_record(tmp_path):
    # The watcher saw the pod running at 00:05 and then stopped; a kubectl snapshot taken
    # later shows it Succeeded at 01:00 (no observed time): the pod only moves forward.
    seen = pod_record(
        _running("a", "n1", labels={"run_id": "r"}), "MODIFIED", "2026-10-01T00:05:00.000000Z"
    )
    watched = tmp_path / "pods-20261001T000500000000Z-000001.jsonl"
    watched.write_text(json.dumps(seen) + "\n")
    done = pod("a", created=T0, scheduled="2026-10-01T00:02:00Z", started="2026-10-01T00:03:00Z",
               finished="2026-10-01T01:00:00Z", node="n1", phase="Succeeded", node_selector=H100,
               labels={"run_id": "r"})  # fmt: skip
    (run,) = read_pod_files([watched, _kubectl(tmp_path, [done])]).jobs.to_pylist()
    assert (run["status"], run["ended_at"]) == ("succeeded", datetime(2026, 10, 1, 1, 0))


def test_kubernetes_a_job_retry_that_succeeds_makes_the_run_succeeded(tmp_path):
    # A Job's first pod fails at 01:00 (exit 1); its retry (same labels) succeeds at 02:00.
    labels = {"run_id": "r"}
    first = pod("r-a", created=T0, scheduled="2026-10-01T00:02:00Z", started="2026-10-01T00:03:00Z",
                finished="2026-10-01T01:00:00Z", exit_code=1, node="n1", phase="Failed",
                node_selector=H100, labels=labels)  # fmt: skip
    retry = pod("r-b", created="2026-10-01T01:00:10Z", scheduled="2026-10-01T01:01:00Z",
                started="2026-10-01T01:01:30Z", finished="2026-10-01T02:00:00Z", node="n2",
                phase="Succeeded", node_selector=H100, labels=labels)  # fmt: skip
    read = read_pod_files([_kubectl(tmp_path, [first, retry])])
    (run,) = read.jobs.to_pylist()
    assert (run["status"], run["started_at"], run["ended_at"]) == (
        "succeeded", datetime(2026, 10, 1, 0, 2), datetime(2026, 10, 1, 2, 0))  # fmt: skip
    assert dict(run["labels"])["k8s_exit_code"] == "1"
    windows = sorted(
        (p["resource_name"], p["start_at"], p["end_at"]) for p in read.placements.to_pylist()
    )
    assert windows == [
        ("n1", datetime(2026, 10, 1, 0, 2), datetime(2026, 10, 1, 1, 0)),
        ("n2", datetime(2026, 10, 1, 1, 1), datetime(2026, 10, 1, 2, 0)),
    ]
