"""Every pod record read is counted once: loaded (as the run it stands for), a duplicate,
quarantined with a reason, or skipped (a pod asking for no accelerator is not a run); the
counts `flopledger run` prints add up (issue 14's rule), worked out by hand below."""

from __future__ import annotations

import json

from k8s_fakes import pod

from flopledger.cli.main import main
from flopledger.collectors.kubernetes.pods import pod_record
from tests.conftest import run_record, write_ndjson

H100 = {"cloud.google.com/gke-accelerator": "nvidia-h100-80gb"}
T0 = "2026-10-01T00:00:00Z"
RUN = {"run_id": "pt-7", "team": "llm"}


def _running(name, node, **kw):
    return pod(name, created=T0, scheduled="2026-10-01T00:02:00Z", started="2026-10-01T00:03:00Z",
               node=node, phase="Running", node_selector=kw.pop("node_selector", H100), **kw)  # fmt: skip


def _files(root):
    """A kubectl snapshot (6 items) and a watcher file (4 lines) that overlap.

    snapshot: pt-7-w0, pt-7-w1 (one run, two hosts), web-1 (CPU only), solo (a GPU pod with no
    run label: a run of its own), odd (an accelerator nobody knows), a Service.
    watcher:  pt-7-w0 running at 00:05, pt-7-w0 Succeeded at 01:00, web-1 at 00:05, a bad line.

    10 records read:
    - quarantined 3: the Service item, the bad line, run ml-research/odd (unknown accelerator);
    - 5 distinct pods from the other 8 records, so 3 superseded records (pt-7-w0's snapshot
      and 00:05 records, web-1's snapshot record): duplicates;
    - skipped 1: web-1 asks for no accelerator;
    - runs pt-7 (w0 + w1: w1 folds into the run, 1 more duplicate), ml-research/solo,
      ml-research/odd (quarantined above): loaded 2.
    2 loaded + 4 duplicate + 3 quarantined + 1 skipped = 10.
    """
    snapshot = [
        _running("pt-7-w0", "gke-a3-1", labels=RUN),
        _running("pt-7-w1", "gke-a3-2", labels=RUN),
        _running("web-1", "gke-cpu-1", resources={"requests": {"cpu": "2"}}),
        _running("solo", "gke-a3-3"),
        _running("odd", "gke-z-1", node_selector={"cloud.google.com/gke-accelerator": "nvidia-z9000"}),
        {"kind": "Service", "apiVersion": "v1", "metadata": {"name": "s", "uid": "u-s"}},
    ]  # fmt: skip
    (root / "kubernetes").mkdir()
    (root / "kubernetes" / "pods.json").write_text(json.dumps({"kind": "List", "items": snapshot}))
    done = pod("pt-7-w0", created=T0, scheduled="2026-10-01T00:02:00Z",
               started="2026-10-01T00:03:00Z", finished="2026-10-01T01:00:00Z", node="gke-a3-1",
               phase="Succeeded", node_selector=H100, labels=RUN)  # fmt: skip
    lines = [
        pod_record(snapshot[0], "MODIFIED", "2026-10-01T00:05:00.000000Z"),
        pod_record(done, "MODIFIED", "2026-10-01T01:00:05.000000Z"),
        pod_record(snapshot[2], "MODIFIED", "2026-10-01T00:05:00.000000Z"),
    ]
    watched = root / "kubernetes" / "pods-20261001T000500000000Z-000001.jsonl"
    watched.write_text("".join(json.dumps(r) + "\n" for r in lines) + "not json\n")


def test_kubernetes_pod_records_are_each_counted_once(tmp_path):
    from flopledger.collectors.kubernetes.read import read_pod_files

    _files(tmp_path)
    read = read_pod_files(sorted((tmp_path / "kubernetes").iterdir()))
    assert sorted(read.jobs["run_id"].to_pylist()) == ["ml-research/solo", "pt-7"]
    assert (read.rows_read, read.pods, read.superseded, read.folded) == (10, 5, 3, 1)
    assert (read.duplicates, len(read.quarantined), read.pods_skipped) == (4, 3, 1)
    (pt,) = [r for r in read.jobs.to_pylist() if r["run_id"] == "pt-7"]
    assert pt["status"] == "running"  # w1 is still running; w0's newest record says Succeeded


def test_kubernetes_run_report_adds_up_with_skipped_pods(tmp_path, capsys):
    """jobs: the jobs file's 3 lines (r-1, r-1 again: a duplicate, a broken line) and the 10
    pod records above: read 13 = loaded 3 (r-1, pt-7, solo) + duplicate 5 (1 + 4) +
    quarantined 4 (1 + 3) + skipped 1."""
    _files(tmp_path)
    write_ndjson(tmp_path / "jobs" / "runs.jsonl", [run_record("r-1"), run_record("r-1"), "[1"])
    (tmp_path / "flopledger.yaml").write_text(
        "warehouse: {kind: duckdb, path: w.duckdb}\n"
        "sources:\n"
        '  jobs: {paths: ["jobs/*.jsonl"]}\n'
        '  kubernetes: {paths: ["kubernetes/*.json", "kubernetes/*.jsonl"]}\n'
    )
    main(["run", "--config", str(tmp_path / "flopledger.yaml")])
    printed = capsys.readouterr().out
    (row,) = [line.split() for line in printed.splitlines() if line.startswith("jobs ")]
    assert row == ["jobs", "13", "3", "5", "4", "1"], printed
    assert "neither loaded nor refused" not in printed
    assert "  jobs: 1 skipped: no accelerator (a pod that asks for no GPU" in printed
    header = next(line for line in printed.splitlines() if line.startswith("source table"))
    assert header.split()[-1] == "skipped"
