"""A GKE segment (opt-in: `flopledger simulate --gke`): node pools, pods as runs, MIG slices.

One cluster, `acme-gke`, in project acme-llm-prod, with two node pools of A3 (8 x H100) nodes:
- `a3-train`: two nodes; training pods hold a whole node (8 GPUs) or half (4 GPUs, two at
  once); some fail, one in ten of those evicted (status.reason Evicted); the last may still be
  running at the end of the period;
- `a3-mig`: one node whose GPUs GKE partitions into 1g.10gb MIG slices (node selector
  `cloud.google.com/gke-gpu-partition-size`); inference pods ask for 1 to 4 slices
  (`nvidia.com/gpu: k`), each holding k/7 of a GPU. Each GPU runs two lanes of pods (up to 3
  and up to 4 slices), so no GPU is ever asked for more than its 7 slices.
A GKE node's name is its VM's name: the node VMs are billed like every VM (their rows carry
GKE's `goog-k8s-cluster-name` and `goog-k8s-node-pool-name` labels), and the pods are written
as `kubectl get pods -A -o json` would print them at the end of the period, with one pod that
never schedules (it is not a run of the truth: it held nothing). Run ids are `gke-NNNNNN`.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flopledger.simulator.clock import HOUR_US, MINUTE_US, US, iso_text
from flopledger.simulator.fleet import A3, PROJECTS, ZONE, Fleet, Vm
from flopledger.simulator.schedule import MODELS, Placement, Run

CLUSTER = "acme-gke"
PROJECT = PROJECTS[0]
MIG_PROFILE = "1g.10gb"
MIG_SLICES = 7  # 1g.10gb slices of one H100 80GB (accelerators/mig.py)
LANES = ((0, 3), (3, 4))  # per GPU: (first slice, most slices a pod of the lane asks for)
NAMESPACES = {"train": ("llm-train", "llm"), "serve": ("inference", "inference")}
GKE_H100 = "nvidia-h100-80gb"


@dataclass
class GkeSegment:
    nodes: list[Vm]
    runs: list[Run]
    pods: list[dict[str, Any]] = field(default_factory=list)


def node_name(pool: str, i: int) -> str:
    """GKE's node (and VM) name: gke-<cluster>-<pool>-<8 hex>-<4 chars>."""
    group = hashlib.sha256(f"{CLUSTER}/{pool}".encode()).hexdigest()[:8]
    suffix = hashlib.sha256(f"{CLUSTER}/{pool}/{i}".encode()).hexdigest()[:4]
    return f"gke-{CLUSTER}-{pool}-{group}-{suffix}"


def _node(index: int, pool: str, i: int, fleet: Fleet) -> Vm:
    return Vm(
        index=10_000 + index,
        name=node_name(pool, i),
        machine=A3,
        project=PROJECT,
        zone=ZONE,
        team=None,
        created_us=fleet.start_us,
        deleted_us=fleet.end_us,
        committed_use=False,
        slurm=False,
        disk_gib=200,
        labels=(("goog-k8s-cluster-name", CLUSTER), ("goog-k8s-node-pool-name", pool)),
    )


class _Ids:
    def __init__(self) -> None:
        self.n = 0

    def next(self) -> str:
        self.n += 1
        return f"gke-{self.n:06d}"


def _run(
    ids: _Ids,
    rng: random.Random,
    kind: str,
    workload: str,
    node: Vm,
    held: tuple[int, int, int, int],  # count, first device, share numerator, denominator
    start: int,
    end: int | None,
    status: str,
    period_start: int,
) -> Run:
    run_id = ids.next()
    model, params = rng.choice(MODELS)
    count, first, numerator, denominator = held
    queued = max(period_start, start - rng.randrange(5, 40 * 60) * US)
    return Run(
        run_id=run_id,
        job_id=f"{NAMESPACES[kind][0]}/job-{run_id}",
        attempt=1,
        team=NAMESPACES[kind][1],
        project_id=PROJECT.project_id,
        workload_class=workload,
        experiment_id=f"exp-gke-{rng.randrange(1, 12):03d}",
        model_name=model,
        model_params=params,
        submitted_us=queued,
        started_us=start,
        ended_us=end,
        status=status,
        accelerator_type=A3.accelerator_type,
        accelerator_count=count,
        tokens_in=None,
        tokens_out=None,
        scheduler="kubernetes",
        placements=[
            Placement(
                node.name, PROJECT.project_id, count, start, end, first, numerator, denominator
            )
        ],  # fmt: skip
    )


def _lane(
    rng: random.Random,
    ids: _Ids,
    fleet: Fleet,
    kind: str,
    node: Vm,
    held: tuple[int, int, int, int] | None,
    hours: tuple[float, float],
) -> list[Run]:
    """Pods one after another on one lane of a node, with gaps; None `held`: 1 to 4 slices."""
    runs: list[Run] = []
    t = fleet.start_us + rng.randrange(0, 90) * MINUTE_US
    while t < fleet.end_us - HOUR_US:
        if kind == "train":
            workload, status = rng.choice(("pretraining", "post_training")), "succeeded"
        else:
            workload, status = rng.choice(("online_inference", "batch_inference")), "succeeded"
        duration = int(rng.uniform(*hours) * HOUR_US) + rng.randrange(US)
        if rng.random() < 0.12:
            status, duration = "failed", duration // 3
        end: int | None = t + duration
        if end is not None and end >= fleet.end_us:
            end, status = None, "running"
        runs.append(_run(ids, rng, kind, workload, node, held or (0, 0, 1, 1), t, end, status,
                         fleet.start_us))  # fmt: skip
        if end is None:
            break
        t = end + rng.randrange(2, 90) * MINUTE_US
    return runs


def build_gke(fleet: Fleet, seed: int) -> GkeSegment:
    """The segment's nodes (added to `fleet.vms`: they are billed like every VM) and runs."""
    rng = random.Random(f"gke:{seed}")
    ids = _Ids()
    train = [_node(i, "a3-train", i, fleet) for i in range(2)]
    mig = [_node(2, "a3-mig", 0, fleet)]
    runs: list[Run] = []
    # Training: node 0 whole-node pods; node 1 two lanes of 4-GPU pods.
    runs += _lane(rng, ids, fleet, "train", train[0], (8, 0, 1, 1), (2, 14))
    for first in (0, 4):
        runs += _lane(rng, ids, fleet, "train", train[1], (4, first, 1, 1), (1, 8))
    # MIG: every GPU of the MIG node, two lanes of 1g.10gb pods.
    for gpu in range(A3.gpus):
        for _, most in LANES:
            lane_runs = _lane(rng, ids, fleet, "serve", mig[0], (1, gpu, 1, MIG_SLICES), (0.5, 6))
            for run in lane_runs:
                slices = rng.randrange(1, most + 1)
                run.accelerator_count = slices
                run.placements[0].accelerators = slices
            runs += lane_runs
    runs.sort(key=lambda r: r.run_id)
    fleet.vms.extend(train + mig)
    return GkeSegment(train + mig, runs)


def _pod(run: Run, index: int) -> dict[str, Any]:
    """The run's pod as the API prints it at the end of the period."""
    kind = "serve" if run.workload_class.endswith("inference") else "train"
    namespace = NAMESPACES[kind][0]
    placement = run.placements[0]
    mig = placement.share_denominator != 1
    selector = {"cloud.google.com/gke-accelerator": GKE_H100,
                "cloud.google.com/gke-nodepool": "a3-mig" if mig else "a3-train"}  # fmt: skip
    if mig:
        selector["cloud.google.com/gke-gpu-partition-size"] = MIG_PROFILE
    created, scheduled = iso_text(run.submitted_us), iso_text(run.started_us)
    running = {"startedAt": iso_text(run.started_us + 3 * US)}
    evicted = run.status == "failed" and index % 10 == 0
    state: dict[str, Any]
    if run.ended_us is None:
        phase, state = "Running", {"running": running}
    else:
        code = 0 if run.status == "succeeded" else 137 if evicted else 1
        phase = "Succeeded" if run.status == "succeeded" else "Failed"
        state = {"terminated": {"exitCode": code, "reason": "Completed" if code == 0 else "Error",
                                "startedAt": running["startedAt"],
                                "finishedAt": iso_text(run.ended_us)}}  # fmt: skip
    status: dict[str, Any] = {
        "phase": phase,
        "conditions": [{"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                        "lastTransitionTime": scheduled}],  # fmt: skip
        "hostIP": f"10.128.0.{index % 250 + 2}",
        "startTime": scheduled,
        "containerStatuses": [{"name": "main", "image": "acme/worker:1", "ready": phase == "Running",
                               "restartCount": 0, "started": phase == "Running",
                               "imageID": "us-docker.pkg.dev/acme/worker@sha256:5e1f",
                               "containerID": f"containerd://{run.run_id}", "state": state}],
        "qosClass": "Burstable",
    }  # fmt: skip
    if evicted:
        status["reason"] = "Evicted"
        status["message"] = "The node was low on resource: ephemeral-storage."
    name = f"job-{run.run_id}-{hashlib.sha256(run.run_id.encode()).hexdigest()[:5]}"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": f"{hashlib.sha256(name.encode()).hexdigest()[:8]}-0000-4000-8000-{index:012d}",
            "creationTimestamp": created,
            "resourceVersion": str(100_000 + index),
            "labels": {
                "run_id": run.run_id,
                "job_id": run.job_id,
                "team": run.team,
                "workload_class": run.workload_class,
                "experiment_id": run.experiment_id,
                "model_name": run.model_name,
                "batch.kubernetes.io/job-name": f"job-{run.run_id}",
            },
            "annotations": {"flopledger.io/model-params": str(run.model_params)},
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": f"job-{run.run_id}",
                                 "uid": f"job-uid-{run.run_id}", "controller": True,
                                 "blockOwnerDeletion": True}],
        },
        "spec": {
            "nodeName": placement.resource_name,
            "nodeSelector": selector,
            "containers": [{"name": "main", "image": "acme/worker:1",
                            "resources": {"limits": {"nvidia.com/gpu": str(placement.accelerators)},
                                          "requests": {"cpu": "4",
                                                       "nvidia.com/gpu": str(placement.accelerators)}}}],
            "restartPolicy": "Never",
            "schedulerName": "default-scheduler",
        },
        "status": status,
    }  # fmt: skip


def _pending_pod(fleet: Fleet) -> dict[str, Any]:
    """A pod that asked for 16 GPUs on one node: it never schedules."""
    created = iso_text(fleet.end_us - 3 * HOUR_US)
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "too-big-0", "namespace": "llm-train", "uid": "pending-0000-4000-8000-0",
                     "creationTimestamp": created, "resourceVersion": "99999",
                     "labels": {"run_id": "gke-pending-1", "team": "llm"}},
        "spec": {"nodeSelector": {"cloud.google.com/gke-accelerator": GKE_H100},
                 "containers": [{"name": "main", "image": "acme/worker:1",
                                 "resources": {"limits": {"nvidia.com/gpu": "16"}}}]},
        "status": {"phase": "Pending", "qosClass": "Burstable",
                   "conditions": [{"type": "PodScheduled", "status": "False", "lastProbeTime": None,
                                   "lastTransitionTime": created, "reason": "Unschedulable",
                                   "message": "0/3 nodes are available: 3 Insufficient nvidia.com/gpu."}]},
    }  # fmt: skip


def write_pods(path: Path, segment: GkeSegment, fleet: Fleet) -> Path:
    """`kubectl get pods -A -o json` at the end of the period (a v1 List of Pods)."""
    items = [_pod(run, i) for i, run in enumerate(segment.runs)] + [_pending_pod(fleet)]
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {
        "apiVersion": "v1",
        "items": items,
        "kind": "List",
        "metadata": {"resourceVersion": ""},
    }
    path.write_text(json.dumps(document, indent=4) + "\n")
    return path


def config_lines() -> list[str]:
    """The `sources.kubernetes` entry of the simulated flopledger.yaml."""
    return [
        "  kubernetes:",
        '    paths: ["kubernetes/*.json"]',
        f"    project_id: {PROJECT.project_id}",
    ]
