"""A pod that asks for a billion GPUs is quarantined by the reader, so the books never see it:
no cost_per_run row, and the node's hour stays with the run that really ran there and idle.

The runs come through the real pod reader (collectors/kubernetes/read.py); the marts are built
from what it loaded (tests/models/conftest.py)."""

import json
from decimal import Decimal as D

from flopledger.collectors.kubernetes.read import read_pod_files
from tests.collectors.kubernetes.k8s_fakes import pod
from tests.models.rows import gpu, host

NODE = "gke-a3-node-1"


def _pod(name, gpus):
    return pod(
        name,
        labels={"run_id": name, "workload_class": "pretraining"},
        node=NODE,
        scheduled="2026-10-01T00:00:00Z",
        started="2026-10-01T00:00:00Z",
        finished="2026-10-01T01:00:00Z",
        phase="Succeeded",
        resources={"limits": {"nvidia.com/gpu": str(gpus)}},
        node_selector={"cloud.google.com/gke-accelerator": "nvidia-h100-80gb"},
    )


def _runs_as_loaded(read):
    """The reader's jobs and placements rows in the shape Books.build takes."""
    placements = read.placements.to_pylist()
    return [
        {
            **job,
            "placements": [
                {k: p[k] for k in ("resource_name", "project_id", "accelerators")}
                for p in placements
                if p["run_id"] == job["run_id"]
            ],
        }
        for job in read.jobs.to_pylist()
    ]


def test_a_billion_gpu_pod_takes_nothing_from_the_node(books, tmp_path):
    path = tmp_path / "pods.json"
    items = [_pod("train", 4), _pod("huge", 1_000_000_000)]
    path.write_text(json.dumps({"kind": "List", "items": items}))
    read = read_pod_files([path], project_id="ml-prod")
    assert [q.reason.split(":")[0] for q in read.quarantined] == ["run huge"]

    # The node's hour: GPU 80 + host 8 = 88 for 8 x 3600 = 28,800 GPU-seconds paid.
    # train held 4 GPUs all hour: 14,400 s of 28,800 -> 88 x 1/2 = 44.
    # The other 4 GPUs were held by nobody: 88 - 44 = 44 unallocated idle.
    billing = [gpu("2026-10-01 00", 80, resource=NODE), host("2026-10-01 00", 8, resource=NODE)]
    b = books.build(billing, _runs_as_loaded(read))
    assert b.rows("SELECT run_id FROM cost_per_run") == [{"run_id": "train"}]
    assert b.run_cost("train") == D("44")
    assert b.one("SELECT accelerator_hours FROM cost_per_run WHERE run_id = 'train'") == 4.0
    hour = b.idle(NODE, "2026-10-01 00:00:00")
    assert hour["allocated_accelerator_hours"] == 4.0
    assert hour["unallocated_idle_cost"] == D("44")
    closes = b.rows("SELECT difference FROM books")
    assert closes and all(r["difference"] == 0 for r in closes)
