"""One Pod object (the Kubernetes API's JSON shape, camelCase) to one pod lifecycle record.

A lifecycle record keeps what costing a pod needs and nothing else (no env, no volumes):

    {"record": "pod", "observed_at", "event", "uid", "namespace", "name", "owner_kind",
     "owner_name", "labels", "annotations", "node", "node_selector", "requests",
     "created_at", "scheduled_at", "started_at", "finished_at", "deleted_at", "phase",
     "reason", "exit_code"}

Times are the API's RFC 3339 strings. `requests` sums the containers' requests (limits when a
container gives only limits, as Kubernetes defaults them for extended resources) of
`nvidia.com/gpu`, `nvidia.com/mig-<profile>` and `google.com/tpu`; init containers count
too when they ask for more (the pod's effective request is the larger).
"""

from __future__ import annotations

from typing import Any

RECORD = "pod"
ACCELERATOR_RESOURCES = ("nvidia.com/gpu", "google.com/tpu")
MIG_PREFIX = "nvidia.com/mig-"
# Owners that make a run of several pods: JobSet and LeaderWorkerSet label their pods.
_GROUP_LABELS = (
    ("JobSet", "jobset.sigs.k8s.io/jobset-name"),
    ("LeaderWorkerSet", "leaderworkerset.sigs.k8s.io/name"),
)
_DROPPED_ANNOTATIONS = ("kubectl.kubernetes.io/last-applied-configuration",)
_MAX_ANNOTATION = 2000


class NotAPod(ValueError):
    """An object that is not a Pod; the message says why (the quarantine reason)."""


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _quantity(value: Any) -> int:
    """An extended resource's quantity: a whole number ("1", 8). Others raise NotAPod."""
    text = str(value).strip()
    if not text.isdigit():
        raise NotAPod(f"accelerator quantity {value!r} is not a whole number")
    return int(text)


def _container_requests(container: dict[str, Any]) -> dict[str, int]:
    resources = _dict(container.get("resources"))
    asked = {**_dict(resources.get("limits")), **_dict(resources.get("requests"))}
    return {
        name: _quantity(value)
        for name, value in asked.items()
        if name in ACCELERATOR_RESOURCES or name.startswith(MIG_PREFIX)
    }


def pod_requests(spec: dict[str, Any]) -> dict[str, int]:
    """Accelerator requests of the pod: sum over containers, at least each init container's."""
    total: dict[str, int] = {}
    for container in spec.get("containers") or []:
        for name, n in _container_requests(_dict(container)).items():
            total[name] = total.get(name, 0) + n
    for container in spec.get("initContainers") or []:
        for name, n in _container_requests(_dict(container)).items():
            total[name] = max(total.get(name, 0), n)
    return {name: n for name, n in sorted(total.items()) if n > 0}


def _owner(metadata: dict[str, Any]) -> tuple[str | None, str | None]:
    labels = _dict(metadata.get("labels"))
    for kind, key in _GROUP_LABELS:
        if labels.get(key):
            return kind, str(labels[key])
    refs = [_dict(r) for r in metadata.get("ownerReferences") or []]
    controller = next((r for r in refs if r.get("controller")), refs[0] if refs else None)
    if controller is None:
        return None, None
    return controller.get("kind"), controller.get("name")


def _condition_time(status: dict[str, Any], kind: str) -> str | None:
    for condition in status.get("conditions") or []:
        condition = _dict(condition)
        if condition.get("type") == kind and condition.get("status") == "True":
            return condition.get("lastTransitionTime")
    return None


def _container_states(status: dict[str, Any]) -> list[dict[str, Any]]:
    return [_dict(_dict(s).get("state")) for s in status.get("containerStatuses") or []]


def _started(status: dict[str, Any]) -> str | None:
    """When the first container started running (the pod's work began)."""
    times = [
        t
        for state in _container_states(status)
        for t in (
            _dict(state.get("running")).get("startedAt"),
            _dict(state.get("terminated")).get("startedAt"),
        )  # fmt: skip
        if t
    ]
    return min(times) if times else status.get("startTime")


def _finished(status: dict[str, Any], phase: str | None) -> str | None:
    """When a pod in a final phase finished: its last container's end, else (evicted or killed
    before a container ran) the latest condition change."""
    if phase not in ("Succeeded", "Failed"):
        return None
    ends = [
        t
        for state in _container_states(status)
        if (t := _dict(state.get("terminated")).get("finishedAt"))
    ]
    if ends:
        return max(ends)
    changes = [
        t for c in status.get("conditions") or [] if (t := _dict(c).get("lastTransitionTime"))
    ]
    return max(changes) if changes else None


def _exit_code(status: dict[str, Any]) -> int | None:
    codes = [
        code
        for state in _container_states(status)
        if (code := _dict(state.get("terminated")).get("exitCode")) is not None
    ]
    if not codes:
        return None
    failed = [int(c) for c in codes if int(c) != 0]
    return failed[0] if failed else 0


def _annotations(metadata: dict[str, Any]) -> dict[str, str]:
    return {
        str(k): str(v)[:_MAX_ANNOTATION]
        for k, v in _dict(metadata.get("annotations")).items()
        if k not in _DROPPED_ANNOTATIONS
    }


def pod_record(pod: Any, event: str, observed_at: str | None) -> dict[str, Any]:
    """The lifecycle record of one Pod object as an event (ADDED, MODIFIED, DELETED, LISTED)
    showed it; NotAPod when it is not a Pod with a uid."""
    if not isinstance(pod, dict):
        raise NotAPod(f"expected a Pod object, got {type(pod).__name__}")
    if pod.get("kind") not in (None, "Pod"):
        raise NotAPod(f"kind is {pod.get('kind')!r}, not Pod")
    metadata, spec, status = (_dict(pod.get(k)) for k in ("metadata", "spec", "status"))
    if not all(isinstance(metadata.get(k), str) and metadata[k] for k in ("uid", "name")):
        raise NotAPod("metadata.uid and metadata.name are required (strings)")
    phase = status.get("phase")
    owner_kind, owner_name = _owner(metadata)
    deleted = metadata.get("deletionTimestamp") or (observed_at if event == "DELETED" else None)
    return {
        "record": RECORD,
        "observed_at": observed_at,
        "event": event,
        "uid": str(metadata["uid"]),
        "namespace": str(metadata.get("namespace") or "default"),
        "name": str(metadata["name"]),
        "owner_kind": owner_kind,
        "owner_name": owner_name,
        "labels": {str(k): str(v) for k, v in _dict(metadata.get("labels")).items()},
        "annotations": _annotations(metadata),
        "node": spec.get("nodeName"),
        "node_selector": {str(k): str(v) for k, v in _dict(spec.get("nodeSelector")).items()},
        "requests": pod_requests(spec),
        "created_at": metadata.get("creationTimestamp"),
        "scheduled_at": _condition_time(status, "PodScheduled"),
        "started_at": _started(status),
        "finished_at": _finished(status, phase),
        "deleted_at": deleted,
        "phase": phase,
        "reason": status.get("reason"),
        "exit_code": _exit_code(status),
    }
