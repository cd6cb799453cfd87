"""Allocated idle per pod: on a shared node, each Kubernetes run's busy fraction comes from
its own pods' GPU minutes (the NVML agent's pod labels, pod_gpu_hourly), worked by hand.

vm-1 (8 H100s), hour 00, GPU row 80 USD for 28,800 GPU-seconds (10 USD a GPU-hour):
- run "train" (pod ml/train) holds 4 GPUs all hour: allocated 4 x 10 = 40. The agent
  labelled GPUs 0-3 with ml/train every minute, SM activity 90 %: busy 0.9.
- run "infer" (pod ml/infer) holds 2 GPUs all hour: allocated 20. GPUs 4-5 are labelled
  ml/infer, SM activity 30 %: busy 0.3.
- GPUs 6-7: no pod, 0 % (unallocated idle: 80 - 40 - 20 = 20).
Per pod: train's allocated idle = 40 x (1 - 0.9) = 4; infer's = 20 x (1 - 0.3) = 14.
The resource-hour's average (what every run got before): busy 4 x 3,600 x 0.9 + 2 x 3,600
x 0.3 = 15,120 s over the 21,600 s held = 0.7, so 40 x 0.3 = 12 and 20 x 0.3 = 6: the same
18 in all, split the wrong way. Their costs (40, 20) and the books are unchanged: busy time
only moves cost between a run's busy and idle parts.

vm-2 (8 H100s), hour 00, 80 USD: run "batch" from the jobs file holds all 8; its GPU
minutes carry no pod (off Kubernetes), SM activity 50 %: the resource-hour's fraction, 0.5,
so allocated idle 80 x 0.5 = 40.
"""

from datetime import datetime, timedelta
from decimal import Decimal as D
from typing import Any

from tests.models.rows import gpu, run

START = datetime(2026, 10, 1)


def _minutes(
    resource: str, gpus: dict[int, tuple[float, tuple[str, str] | None]]
) -> list[dict[str, Any]]:
    """60 minutes of the given GPUs: index -> (SM activity %, (namespace, pod) or None)."""
    rows = []
    for m in range(60):
        for i, (sm, pod) in gpus.items():
            namespace, name = pod if pod else (None, None)
            rows.append({
                "minute": START + timedelta(minutes=m), "node": resource, "project_id": "ml-prod",
                "resource_name": resource, "gpu_uuid": f"GPU-{resource}-{i}", "gpu_index": i,
                "util_gpu_pct": 100.0 if sm else 0.0, "sm_active_pct": sm,
                "tensor_active_pct": sm / 2, "samples": 60, "status": "ok",
                "pod_namespace": namespace, "pod_name": name,
                "pod_uid": f"uid-{name}" if name else None,
            })  # fmt: skip
    return rows


def _pod_run(run_id: str, pod: str, gpus: int) -> dict[str, Any]:
    """A run as collectors/kubernetes/runs.py writes it: scheduler kubernetes, its pods'
    namespace and names in the k8s_namespace and k8s_pods labels."""
    return run(run_id, gpus=gpus, scheduler="kubernetes",
               labels={"k8s_namespace": "ml", "k8s_pods": pod})  # fmt: skip


def test_agent_pod_busy_gives_each_run_its_own_allocated_idle(books) -> None:
    vm1 = {i: (90.0, ("ml", "train")) for i in range(4)}
    vm1 |= {i: (30.0, ("ml", "infer")) for i in (4, 5)}
    vm1 |= {i: (0.0, None) for i in (6, 7)}
    vm2 = {i: (50.0, None) for i in range(8)}
    runs = [
        _pod_run("train-1", "train", 4),
        _pod_run("infer-1", "infer", 2),
        run("batch-1", gpus=8, resource="vm-2"),
    ]
    b = books.build(
        [gpu("2026-10-01 00", 80), gpu("2026-10-01 00", 80, resource="vm-2")],
        runs,
        gpu_samples=_minutes("vm-1", vm1) + _minutes("vm-2", vm2),
    )
    got = b.rows(
        "SELECT run_id, busy_micros, busy_basis, allocated_idle_nanos FROM run_utilisation "
        "ORDER BY run_id"
    )
    assert got == [
        {"run_id": "batch-1", "busy_micros": 500_000, "busy_basis": "resource_hour",
         "allocated_idle_nanos": 40_000_000_000},
        {"run_id": "infer-1", "busy_micros": 300_000, "busy_basis": "pod",
         "allocated_idle_nanos": 14_000_000_000},
        {"run_id": "train-1", "busy_micros": 900_000, "busy_basis": "pod",
         "allocated_idle_nanos": 4_000_000_000},
    ]  # fmt: skip
    costs = b.rows(
        "SELECT run_id, effective_cost, allocated_idle_cost FROM cost_per_run ORDER BY run_id"
    )
    assert [(r["run_id"], r["effective_cost"], r["allocated_idle_cost"]) for r in costs] == [
        ("batch-1", D("80"), D("40")),
        ("infer-1", D("20"), D("14")),
        ("train-1", D("40"), D("4")),
    ]
    idle = b.idle("vm-1", "2026-10-01 00:00:00")
    assert (idle["allocated_cost"], idle["allocated_idle_cost"], idle["unallocated_idle_cost"]) == (
        D("60"),
        D("18"),
        D("20"),
    )
    differences = b.rows("SELECT check_name, difference FROM books")
    assert differences and all(r["difference"] == 0 for r in differences), differences


def test_agent_pod_busy_is_not_used_for_mig_slices(books) -> None:
    """A MIG run keeps the resource-hour's fraction: its pod's labelled minutes measure the
    whole GPU, not its slice.

    vm-1 (8 H100s), hour 00, 80 USD for 28,800 GPU-seconds. Run "mig" (pod ml/mig) holds one
    1g.10gb slice (1/7) of GPU 0 all hour: H = floor(3,600e9 / 7) = 514,285,714,285 nanos,
    allocated floor(80e9 x H / 28,800e9) = 1,428,571,428 nano-USD. The agent labels GPU 0
    with ml/mig (the only pod on it); its SM activity is 10 % (the slice busy, the rest of the
    GPU's SMs not). GPUs 1-7: no pod, 0 %.
    Pod basis would say busy 0.1 (idle 0.9 of its cost). The resource-hour's: busy 3,600 x 0.1
    = 360 s over the 514.285714285 s held = 0.7, so busy_micros 700,000 and allocated idle
    floor(1,428,571,428 x 300,000 / 1e6) = 428,571,428 nanos.
    """
    vm1 = {0: (10.0, ("ml", "mig"))} | {i: (0.0, None) for i in range(1, 8)}
    mig = run("mig-1", gpus=1, scheduler="kubernetes",
              labels={"k8s_namespace": "ml", "k8s_pods": "mig"},
              placements=[{"resource_name": "vm-1", "accelerators": 1,
                           "share_numerator": 1, "share_denominator": 7}])  # fmt: skip
    b = books.build([gpu("2026-10-01 00", 80)], [mig], gpu_samples=_minutes("vm-1", vm1))
    got = b.rows(
        "SELECT u.busy_micros, u.busy_basis, u.allocated_idle_nanos, a.allocated_nanos "
        "FROM run_utilisation AS u JOIN run_allocation AS a USING (run_id, resource_name, hour)"
    )
    assert got == [
        {"busy_micros": 700_000, "busy_basis": "resource_hour",
         "allocated_idle_nanos": 428_571_428, "allocated_nanos": 1_428_571_428},
    ]  # fmt: skip


def test_agent_pod_busy_ignores_a_pod_name_the_label_may_have_cut(books) -> None:
    """k8s_pods is cut at 1,000 characters (collectors/kubernetes/runs.py), so at that length
    its last name may be cut and is not used. vm-1: GPUs 0-3 labelled ml/train at 90 %,
    GPUs 4-7 no pod at 50 %; run train-1 holds GPUs 0-3 (14,400 s).
    - label "a" x 993 + ",train" (999 characters): train is used: busy 0.9 (900,000).
    - label "a" x 994 + ",train" (1,000 characters): not used, so the resource-hour's
      fraction: busy 4 x 3,600 x 0.9 + 4 x 3,600 x 0.5 = 20,160 s over 14,400 s held,
      capped at 1 (1,000,000).
    """
    vm1 = {i: (90.0, ("ml", "train")) for i in range(4)} | {i: (50.0, None) for i in range(4, 8)}
    for prefix, expected in ((993, (900_000, "pod")), (994, (1_000_000, "resource_hour"))):
        pods = "a" * prefix + ",train"
        train = run("train-1", gpus=4, scheduler="kubernetes",
                    labels={"k8s_namespace": "ml", "k8s_pods": pods})  # fmt: skip
        b = books.build([gpu("2026-10-01 00", 80)], [train], gpu_samples=_minutes("vm-1", vm1))
        got = b.rows("SELECT busy_micros, busy_basis FROM run_utilisation")
        assert [(r["busy_micros"], r["busy_basis"]) for r in got] == [expected], len(pods)
