"""The pod watcher with the real `kubernetes` client against a local API server stand-in.

The story (UTC, 2026-10-01), served as list and watch responses in the API's shapes:
- list 1 (resourceVersion 100): train-a (run-a, 8 H100s on gke-ml-pool-a-1111, created 00:00,
  scheduled 00:10, running), stuck (8 GPUs asked, never schedules);
- watch 1: evicted ADDED (unscheduled), MODIFIED (scheduled 00:20 on gke-ml-pool-a-2222, 4
  GPUs, running), mig-d ADDED (one 1g.10gb slice on gke-ml-pool-b-3333, scheduled 00:30),
  train-a MODIFIED (Succeeded, finished 02:00), then an ERROR event: 410 Expired;
- list 2 (resourceVersion 200): stuck, evicted now Failed/Evicted (exit 137 at 01:30), mig-d;
  train-a is gone (deleted while the watch was down): the watcher writes it as DELETED;
- watch 2: a BOOKMARK, then mig-d DELETED (deletionTimestamp 03:00) while still Running.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from k8s_fakes import FakeApiServer, pod, status_410

from flopledger.collectors.kubernetes.client import KubernetesError, core_api, list_pods, watch_pods
from flopledger.collectors.kubernetes.read import read_pod_files
from flopledger.collectors.kubernetes.watch import PodWatcher

H100 = {"cloud.google.com/gke-accelerator": "nvidia-h100-80gb"}
RUN_A = {
    "run_id": "run-a",
    "team": "llm",
    "workload_class": "pretraining",
    "experiment_id": "exp-1",
}


def _train_a(**kw):
    base = dict(labels=RUN_A, created="2026-10-01T00:00:00Z", scheduled="2026-10-01T00:10:00Z",
                started="2026-10-01T00:12:00Z", node="gke-ml-pool-a-1111", phase="Running",
                node_selector=H100, owner=("Job", "train-a"))  # fmt: skip
    return pod("train-a-x7k2p", **{**base, **kw})


def _evicted(**kw):
    base = dict(labels={"run_id": "run-c", "team": "llm"}, created="2026-10-01T00:15:00Z",
                node_selector=H100, resources={"limits": {"nvidia.com/gpu": "4"}})  # fmt: skip
    return pod("evicted-c", **{**base, **kw})


def _mig(**kw):
    base = dict(created="2026-10-01T00:25:00Z", scheduled="2026-10-01T00:30:00Z",
                started="2026-10-01T00:31:00Z", node="gke-ml-pool-b-3333", phase="Running",
                node_selector=H100, resources={"limits": {"nvidia.com/mig-1g.10gb": "1"}})  # fmt: skip
    return pod("mig-d", **{**base, **kw})


STUCK = pod("stuck", created="2026-10-01T00:05:00Z", node_selector=H100)
EVICTED_RUNNING = _evicted(scheduled="2026-10-01T00:20:00Z", started="2026-10-01T00:21:00Z",
                           node="gke-ml-pool-a-2222", phase="Running", version="102")  # fmt: skip
EVICTED = _evicted(scheduled="2026-10-01T00:20:00Z", started="2026-10-01T00:21:00Z",
                   node="gke-ml-pool-a-2222", phase="Failed", reason="Evicted",
                   finished="2026-10-01T01:30:00Z", exit_code=137, version="150")  # fmt: skip
LISTS = [
    ("100", [_train_a(), STUCK]),
    ("200", [STUCK, EVICTED, _mig(version="103")]),
]
WATCHES = [
    [
        {"type": "ADDED", "object": _evicted(version="101")},
        {"type": "MODIFIED", "object": EVICTED_RUNNING},
        {"type": "ADDED", "object": _mig(version="103")},
        {
            "type": "MODIFIED",
            "object": _train_a(phase="Succeeded", finished="2026-10-01T02:00:00Z", version="104"),
        },  # fmt: skip
        {"type": "ERROR", "object": status_410("104", "150")},
    ],
    [
        {
            "type": "BOOKMARK",
            "object": {"kind": "Pod", "apiVersion": "v1", "metadata": {"resourceVersion": "210"}},
        },  # fmt: skip
        {"type": "DELETED", "object": _mig(version="220", deletion="2026-10-01T03:00:00Z")},
    ],
]


class Clock:
    """The watcher's clock: one second per reading from 2026-10-01 04:00."""

    def __init__(self) -> None:
        self.ticks = 0

    def __call__(self) -> datetime:
        self.ticks += 1
        return datetime(2026, 10, 1, 4, 0, 0).replace(
            second=self.ticks % 60, minute=self.ticks // 60
        )


def _watch(server: FakeApiServer, tmp_path: Path, **kw) -> tuple[PodWatcher, Path]:
    api = core_api(kubeconfig=str(server.kubeconfig(tmp_path / "kubeconfig")))
    out = tmp_path / "pods"
    watcher = PodWatcher(
        lambda: list_pods(api, page=2),
        lambda version: watch_pods(api, version, timeout_s=30),
        out,
        clock=Clock(),
        **kw,
    )
    return watcher, out


def test_kubernetes_watch_lists_watches_relists_after_410_and_writes_records(tmp_path):
    with FakeApiServer(LISTS, WATCHES) as server:
        watcher, out = _watch(server, tmp_path)
        stats = watcher.run(max_watches=2)
    # What the client asked: list (2 pages of 2: page=2), watch from 100, 410 -> list again
    # (2 pages), watch from 200.
    asked = [(q.get("watch", [""])[0], q.get("resourceVersion", [""])[0], q.get("continue", [""])[0])
             for _, q in server.requests]  # fmt: skip
    assert asked == [
        ("", "", ""),
        ("true", "100", ""),
        ("", "", ""),
        ("", "", "2"),
        ("true", "200", ""),
    ]
    assert server.requests[1][1]["allowWatchBookmarks"] == ["true"]
    assert (stats.lists, stats.watches, stats.gone) == (2, 2, 1)
    # Records: 2 listed + 4 watched + 3 listed again + train-a DELETED unseen + mig-d DELETED.
    assert stats.records == 11
    files = sorted(out.glob("*.jsonl"))
    assert files == stats.files and not list(out.glob(".*"))  # no temp file left
    lines = [line for f in files for line in f.read_text().splitlines()]
    assert len(lines) == 11
    assert '"event": "DELETED"' in lines[-1] and '"name": "mig-d"' in lines[-1]


def test_kubernetes_watch_records_become_runs(tmp_path):
    with FakeApiServer(LISTS, WATCHES) as server:
        watcher, out = _watch(server, tmp_path)
        watcher.run(max_watches=2)
    read = read_pod_files(sorted(out.glob("*.jsonl")))
    assert read.quarantined == []
    assert (read.pods, read.pods_skipped) == (4, 0)
    runs = {r["run_id"]: r for r in read.jobs.to_pylist()}
    assert sorted(runs) == ["ml-research/mig-d", "ml-research/stuck", "run-a", "run-c"]
    a = runs["run-a"]
    # Created 00:00, scheduled 00:10: queue time 600 s; finished 02:00 (then deleted unseen).
    assert (a["submitted_at"], a["started_at"], a["ended_at"]) == (
        datetime(2026, 10, 1, 0, 0),
        datetime(2026, 10, 1, 0, 10),
        datetime(2026, 10, 1, 2, 0),
    )
    assert (a["started_at"] - a["submitted_at"]).total_seconds() == 600
    assert (a["status"], a["team"], a["workload_class"], a["experiment_id"]) == (
        "succeeded",
        "llm",
        "pretraining",
        "exp-1",
    )
    assert (a["accelerator_type"], a["accelerator_count"], a["job_id"]) == (
        "H100-80GB",
        8,
        "ml-research/train-a",
    )
    assert a["scheduler"] == "kubernetes"
    # Never scheduled: still pending, so running with no start and nothing held.
    stuck = runs["ml-research/stuck"]
    assert (stuck["status"], stuck["started_at"], stuck["ended_at"]) == ("running", None, None)
    # Evicted mid-run: failed at 01:30 with its reason and exit code.
    c = runs["run-c"]
    assert (c["status"], c["ended_at"]) == ("failed", datetime(2026, 10, 1, 1, 30))
    assert dict(c["labels"])["k8s_reason"] == "Evicted"
    assert dict(c["labels"])["k8s_exit_code"] == "137"
    # mig-d: deleted while running: cancelled at its deletionTimestamp; team = its namespace.
    d = runs["ml-research/mig-d"]
    assert (d["status"], d["ended_at"], d["team"]) == (
        "cancelled",
        datetime(2026, 10, 1, 3, 0),
        "ml-research",
    )
    held = {(p["run_id"], p["resource_name"]): p for p in read.placements.to_pylist()}
    assert sorted(held) == [("ml-research/mig-d", "gke-ml-pool-b-3333"),
                            ("run-a", "gke-ml-pool-a-1111"), ("run-c", "gke-ml-pool-a-2222")]  # fmt: skip
    pa_ = held[("run-a", "gke-ml-pool-a-1111")]
    assert (pa_["accelerators"], pa_["share_numerator"], pa_["start_at"], pa_["end_at"]) == (
        8,
        None,
        datetime(2026, 10, 1, 0, 10),
        datetime(2026, 10, 1, 2, 0),
    )
    pm = held[("ml-research/mig-d", "gke-ml-pool-b-3333")]
    assert (pm["accelerators"], pm["share_numerator"], pm["share_denominator"]) == (1, 1, 7)
    assert (pm["start_at"], pm["end_at"]) == (
        datetime(2026, 10, 1, 0, 30),
        datetime(2026, 10, 1, 3, 0),
    )
    pc = held[("run-c", "gke-ml-pool-a-2222")]
    assert (pc["accelerators"], pc["start_at"], pc["end_at"]) == (
        4,
        datetime(2026, 10, 1, 0, 20),
        datetime(2026, 10, 1, 1, 30),
    )


def test_kubernetes_watch_flushes_what_it_saw_when_the_api_fails(tmp_path):
    # The second watch answers 500: the error is one line, and the records seen before it
    # are on disk (flushed on the way out).
    with FakeApiServer(
        LISTS[:1], [[{"type": "ADDED", "object": _evicted(version="101")}], 500]
    ) as server:
        watcher, out = _watch(server, tmp_path)
        with pytest.raises(KubernetesError, match="HTTP 500"):
            watcher.run(max_watches=3)
    read = read_pod_files(sorted(out.glob("*.jsonl")))
    assert sorted(r["run_id"] for r in read.jobs.to_pylist()) == [
        "ml-research/stuck",
        "run-a",
        "run-c",
    ]


def test_kubernetes_credentials_errors_are_one_line(tmp_path):
    with pytest.raises(KubernetesError, match="kubernetes credentials"):
        core_api(kubeconfig=str(tmp_path / "missing"))
    with pytest.raises(KubernetesError, match="in-cluster"):
        core_api(in_cluster=True)  # no service account here


def test_kubernetes_kube_watch_command(tmp_path, capsys):
    from flopledger.cli.main import main

    with FakeApiServer(LISTS, WATCHES) as server:
        kubeconfig = str(server.kubeconfig(tmp_path / "kubeconfig"))
        out = tmp_path / "spool"
        # --once: one list (2 pods), one file.
        code = main(["kube-watch", "--config", str(tmp_path / "none.yaml"), "--out", str(out),
                     "--kubeconfig", kubeconfig, "--once"])  # fmt: skip
        assert code == 0
        assert "2 pod records in 1 files" in capsys.readouterr().out
        # Watching until the (short) duration is up: the second list, then watches.
        code = main(["kube-watch", "--config", str(tmp_path / "none.yaml"), "--out", str(out),
                     "--kubeconfig", kubeconfig, "--duration", "1", "--watch-timeout", "1"])  # fmt: skip
        assert code == 0
    read = read_pod_files(sorted(out.glob("*.jsonl")))
    assert "run-c" in read.jobs["run_id"].to_pylist()
    assert main(["kube-watch", "--config", str(tmp_path / "none.yaml")]) == 2  # no --out
    assert "give --out" in capsys.readouterr().err


def test_kubernetes_watch_restart_finds_pods_that_vanished_while_down(tmp_path):
    # First run: train-a and stuck are live. The watcher stops; train-a is deleted meanwhile.
    with FakeApiServer([("100", [_train_a(), STUCK])], [[]]) as server:
        first, out = _watch(server, tmp_path)
        first.run(max_watches=1)
    # A new process on the same spool: its first list lacks train-a, which is written DELETED.
    with FakeApiServer([("300", [STUCK])], [[]]) as server:
        second, _ = _watch(server, tmp_path)
        assert sorted(r["name"] for r in second.live.values()) == ["stuck", "train-a-x7k2p"]
        second.run(max_watches=1)
    runs = {r["run_id"]: r for r in read_pod_files(sorted(out.glob("*.jsonl"))).jobs.to_pylist()}
    # Deleted while running: cancelled, ended when the restarted watcher saw it gone (its
    # clock's second reading: 04:00:02).
    assert (runs["run-a"]["status"], runs["run-a"]["ended_at"]) == (
        "cancelled", datetime(2026, 10, 1, 4, 0, 2))  # fmt: skip
    assert runs["ml-research/stuck"]["status"] == "running"


def test_kubernetes_watch_retries_an_api_error_then_lists_again(tmp_path):
    waits: list[float] = []
    lists = [LISTS[0], LISTS[0]]
    watches = [500, [{"type": "ADDED", "object": _evicted(version="101")}]]
    with FakeApiServer(lists, watches) as server:
        api = core_api(kubeconfig=str(server.kubeconfig(tmp_path / "kubeconfig")))
        watcher = PodWatcher(lambda: list_pods(api), lambda v: watch_pods(api, v, timeout_s=30),
                             tmp_path / "pods", clock=Clock(), retries=1, sleep=waits.append)  # fmt: skip
        stats = watcher.run(max_watches=2)
    assert (stats.lists, stats.watches, waits) == (2, 2, [2.0])
    assert "uid-evicted-c" in watcher.live


def test_kubernetes_in_cluster_credentials_are_the_service_accounts(tmp_path, monkeypatch):
    # What a pod sees: the service host and port in its environment, the token and CA in the
    # service account's folder (here: files in tmp_path, pointed at by the loader's constants).
    from kubernetes.config import incluster_config

    (tmp_path / "token").write_text("sa-token")  # as the kubelet writes it: no newline
    (tmp_path / "ca.crt").write_text(
        "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
    )
    monkeypatch.setattr(incluster_config, "SERVICE_TOKEN_FILENAME", str(tmp_path / "token"))
    monkeypatch.setattr(incluster_config, "SERVICE_CERT_FILENAME", str(tmp_path / "ca.crt"))
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "443")
    configuration = core_api(in_cluster=True).api_client.configuration
    assert configuration.host == "https://10.0.0.1:443"
    assert configuration.api_key["BearerToken"] == "bearer sa-token"
    assert configuration.ssl_ca_cert == str(tmp_path / "ca.crt")


def test_kubernetes_kube_watch_stops_on_sigterm_and_flushes(tmp_path, capsys):
    import os
    import signal
    import threading

    from flopledger.cli.main import main

    before = signal.getsignal(signal.SIGTERM)
    with FakeApiServer(LISTS[:1], []) as server:
        kubeconfig = str(server.kubeconfig(tmp_path / "kubeconfig"))
        done, sent = threading.Event(), threading.Event()

        def terminate_once_watching() -> None:
            # SIGTERM once the watcher has listed and is watching (not after a fixed delay: a
            # busy machine may still be importing the client then)
            while not done.wait(0.05):
                if any(query.get("watch") == ["true"] for _, query in server.requests):
                    sent.set()
                    os.kill(os.getpid(), signal.SIGTERM)
                    return

        killer = threading.Thread(target=terminate_once_watching, daemon=True)
        killer.start()
        code = main(["kube-watch", "--config", str(tmp_path / "none.yaml"), "--out",
                     str(tmp_path / "spool"), "--kubeconfig", kubeconfig, "--duration", "60",
                     "--watch-timeout", "1"])  # fmt: skip
        done.set()
        killer.join()
    assert sent.is_set()  # stopped by the signal, not by --duration
    assert code == 0
    assert "2 pod records in 1 files" in capsys.readouterr().out
    assert signal.getsignal(signal.SIGTERM) == before  # the handler is put back
