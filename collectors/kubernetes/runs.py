"""Pod lifecycle records to run records (the jobs file's shape), by configurable label keys.

A run is the pods that carry the same value of the run label (a multi-host JobSet: one pod per
host, one run); a pod without it is a run of its own, named `<namespace>/<pod>`. Each pod on a
node is a placement: the node's name is its VM's name on GKE, so the billing rows join. The
placement holds from when the pod was scheduled (the PodScheduled condition: the node's
accelerators are its from then) to when it finished or was deleted; queue time is creation to
scheduled. A pod asking for MIG slices (`nvidia.com/mig-1g.10gb: 1`, or GKE's
`nvidia.com/gpu: 1` on a node selected by `cloud.google.com/gke-gpu-partition-size`) holds
each slice's share of a GPU (accelerators/mig.py): 1g.10gb on an H100 is 1/7.

A pod that asks for no accelerator (nvidia.com/gpu, nvidia.com/mig-*, google.com/tpu) is not
a run: the reader counts it as skipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from fractions import Fraction
from typing import Any

from flopledger.accelerators.mig import mig_profile, mig_share
from flopledger.collectors.accelerators import canonical_accelerator
from flopledger.collectors.jobs.schema import WORKLOAD_CLASSES
from flopledger.collectors.kubernetes.pods import MIG_PREFIX

GKE_ACCELERATOR = "cloud.google.com/gke-accelerator"
GKE_TPU_ACCELERATOR = "cloud.google.com/gke-tpu-accelerator"
GKE_PARTITION = "cloud.google.com/gke-gpu-partition-size"
ATTEMPT_LABEL = "jobset.sigs.k8s.io/restart-attempt"


@dataclass(frozen=True)
class PodLabelKeys:
    """Which pod label (or annotation, for numbers) says what. `sources.kubernetes.labels`
    overrides any of them. The run label should match `allocation.run_label_key`: GKE's cost
    allocation exports pod labels on billing rows as `k8s-label/<key>`."""

    run: str = "run_id"
    job: str = "job_id"
    team: str = "team"
    experiment: str = "experiment_id"
    workload_class: str = "workload_class"
    model: str = "model_name"
    model_params: str = "flopledger.io/model-params"  # annotation
    tokens_in: str = "flopledger.io/tokens-in"  # annotation
    tokens_out: str = "flopledger.io/tokens-out"  # annotation
    accelerator_type: str = "flopledger.io/accelerator-type"  # label, when no GKE selector

    @classmethod
    def of(cls, overrides: Mapping[str, str] | None) -> PodLabelKeys:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(overrides or {}) - known)
        if unknown:
            raise ValueError(
                f"unknown pod label role(s) {', '.join(unknown)}: use {', '.join(sorted(known))}"
            )
        return cls(**dict(overrides or {}))


class NotARun(ValueError):
    """Pods that are not a run (no accelerators asked for); the message says why."""


def has_accelerators(pod: dict[str, Any]) -> bool:
    return bool(pod.get("requests"))


def run_key(pod: dict[str, Any], keys: PodLabelKeys) -> str:
    """The run a pod belongs to: its run label, else the pod itself."""
    return pod["labels"].get(keys.run) or f"{pod['namespace']}/{pod['name']}"


def _terminal(pod: dict[str, Any]) -> bool:
    return pod.get("phase") in ("Succeeded", "Failed") or pod.get("deleted_at") is not None


def _end(pod: dict[str, Any]) -> str | None:
    if pod.get("phase") in ("Succeeded", "Failed"):
        return pod.get("finished_at") or pod.get("deleted_at") or pod.get("observed_at")
    return pod.get("deleted_at")


def _status(pods: list[dict[str, Any]]) -> str:
    """running while a pod is; else what the pods that ended last say: a Job's retry that
    succeeded after a failed pod makes the run succeeded, a worker that failed last fails it."""
    if not all(_terminal(p) for p in pods):
        return "running"
    last = max(_end(p) or "" for p in pods)
    phases = {p.get("phase") for p in pods if (_end(p) or "") == last}
    if "Failed" in phases:
        return "failed"
    if phases == {"Succeeded"}:
        return "succeeded"
    return "cancelled"  # deleted before it finished (or before it was scheduled)


def accelerator_type(pod: dict[str, Any], keys: PodLabelKeys) -> str | None:
    """The pod's accelerator as GKE's node selector (or the accelerator label) names it:
    canonical when known, else the name as given (the normaliser reports unknown names)."""
    name = (
        pod["node_selector"].get(GKE_ACCELERATOR)
        or pod["node_selector"].get(GKE_TPU_ACCELERATOR)
        or pod["labels"].get(keys.accelerator_type)
    )
    return (canonical_accelerator(name) or name) if name else None


def _share(accelerator: str | None, profile: str) -> Fraction:
    row = mig_profile(accelerator, profile)
    share = row.share if row is not None else mig_share(profile)
    if share is None:
        raise NotARun(f"unknown MIG profile {profile!r}")
    return share


def holdings(pod: dict[str, Any], accelerator: str | None) -> list[tuple[int, Fraction]]:
    """(count, share of each accelerator) the pod holds: whole GPUs or TPU chips at 1, MIG
    slices at their profile's share."""
    partition = pod["node_selector"].get(GKE_PARTITION)
    out = []
    for resource, n in sorted(pod["requests"].items()):
        if resource.startswith(MIG_PREFIX):
            out.append((n, _share(accelerator, resource.removeprefix(MIG_PREFIX))))
        elif resource == "nvidia.com/gpu" and partition:
            out.append((n, _share(accelerator, partition)))
        else:
            out.append((n, Fraction(1)))
    return out


def _placements(
    pod: dict[str, Any], accelerator: str | None, project_id: str | None
) -> list[dict[str, Any]]:
    if not pod.get("node") or not pod.get("scheduled_at"):
        return []  # never scheduled: held nothing
    rows = []
    for count, share in holdings(pod, accelerator):
        whole = share == 1
        rows.append(
            {
                "resource_name": pod["node"],
                "project_id": project_id,
                "accelerators": count,
                "share_numerator": None if whole else share.numerator,
                "share_denominator": None if whole else share.denominator,
                "start": pod["scheduled_at"],
                "end": _end(pod),
            }
        )
    return rows


def _attempt(pods: list[dict[str, Any]]) -> int:
    values = [p["labels"].get(ATTEMPT_LABEL, "") for p in pods]
    numbers = [int(v) for v in values if v.isdigit()]
    return (max(numbers) if numbers else 0) + 1


def _first(pods: list[dict[str, Any]], where: str, key: str) -> str | None:
    return next((p[where][key] for p in pods if p[where].get(key)), None)


def run_record(
    run_id: str, pods: list[dict[str, Any]], keys: PodLabelKeys, project_id: str | None = None
) -> dict[str, Any]:
    """The run record (jobs file shape, for collectors/jobs/records.normalise_job) of the pods
    of one run, in name order."""
    pods = sorted(pods, key=lambda p: (p["namespace"], p["name"], p["uid"]))
    first = pods[0]
    accelerator = next((a for p in pods if (a := accelerator_type(p, keys))), None)
    held = [h for p in pods for h in holdings(p, accelerator)]
    if not held:
        raise NotARun(
            "no pod of the run asks for nvidia.com/gpu, nvidia.com/mig-* or google.com/tpu"
        )
    status = _status(pods)
    scheduled = [p["scheduled_at"] for p in pods if p.get("scheduled_at")]
    ends = [e for p in pods if (e := _end(p))]
    workload = _first(pods, "labels", keys.workload_class)
    owner = f"{first['namespace']}/{first['owner_name']}" if first.get("owner_name") else None
    labels = dict(first["labels"])
    labels.update(
        {
            "k8s_namespace": first["namespace"],
            "k8s_pods": ",".join(p["name"] for p in pods)[:1000],
            "k8s_phase": ",".join(sorted({str(p.get("phase")) for p in pods})),
        }
    )
    if first.get("owner_kind"):
        labels["k8s_owner"] = f"{first['owner_kind']}/{first['owner_name']}"
    reasons = sorted({p["reason"] for p in pods if p.get("reason")})
    if reasons:
        labels["k8s_reason"] = ",".join(reasons)  # e.g. Evicted
    codes = [p["exit_code"] for p in pods if p.get("exit_code") not in (None, 0)]
    if codes:
        labels["k8s_exit_code"] = str(codes[0])
    return {
        "run_id": run_id,
        "job_id": _first(pods, "labels", keys.job) or owner or run_id,
        "attempt": _attempt(pods),
        "team": _first(pods, "labels", keys.team) or first["namespace"],
        "project_id": project_id,
        "workload_class": workload if workload in WORKLOAD_CLASSES else "other",
        "experiment_id": _first(pods, "labels", keys.experiment),
        "model_name": _first(pods, "labels", keys.model),
        "model_params": _first(pods, "annotations", keys.model_params),
        "tokens_in": _first(pods, "annotations", keys.tokens_in),
        "tokens_out": _first(pods, "annotations", keys.tokens_out),
        "submitted_at": min((p["created_at"] for p in pods if p.get("created_at")), default=None),
        "started_at": min(scheduled) if scheduled else None,
        "ended_at": (max(ends) if ends else None) if status != "running" else None,
        "status": status,
        "accelerator_type": accelerator,
        "accelerator_count": sum(n for n, _ in held),
        "labels": labels,
        "placements": [row for p in pods for row in _placements(p, accelerator, project_id)],
    }
