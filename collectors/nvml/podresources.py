"""Which Kubernetes pod holds each GPU: the kubelet's PodResources v1 gRPC API.

The kubelet serves `PodResourcesLister.List` on a unix socket
(`/var/lib/kubelet/pod-resources/kubelet.sock`); dcgm-exporter reads the same API. Each
container lists the device ids the device plugin gave it, per resource (`nvidia.com/gpu`,
`nvidia.com/mig-1g.10gb`, ...). Device ids name a GPU in one of two ways:

- NVIDIA's device plugin: the GPU UUID (`GPU-...`), or a MIG UUID (`MIG-...`);
- GKE's device plugin: the device file, `nvidia<N>` (N the GPU's minor number, which is its
  NVML index on GKE nodes), and `nvidia<N>/gi<M>` for MIG slice M of GPU N.

A GPU held by exactly one pod is labelled with that pod; a GPU held by none, or whose MIG
slices went to several pods, is labelled with nothing (the minute's row then says null).
MIG UUIDs cannot be tied to their parent GPU from this API alone: such GPUs stay unlabelled.

The API gives namespace and name, not the pod UID; `PodResolver` fills the UID from the
Kubernetes API where it is given a lookup (see `labels.kube_pod_uid`).

Off Kubernetes (no socket) the watcher is off and every GPU is unlabelled. A kubelet that
does not answer is logged once per outage and counted; the agent keeps sampling.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import grpc

from collectors.nvml.kubelet import api_pb2, api_pb2_grpc

log = logging.getLogger(__name__)

DEFAULT_SOCKET = Path("/var/lib/kubelet/pod-resources/kubelet.sock")
GPU_RESOURCE_PREFIX = "nvidia.com/"
_GKE_DEVICE = re.compile(r"^nvidia(\d+)(?:/.*)?$")


@dataclass(frozen=True)
class PodRef:
    """The pod a device belongs to."""

    namespace: str
    name: str
    uid: str | None = None


def list_device_pods(socket_path: str | Path, timeout_s: float = 2.0) -> dict[str, PodRef]:
    """Device id -> pod, for every `nvidia.com/*` device the kubelet has handed out.

    Raises `grpc.RpcError` if the kubelet does not answer within `timeout_s`.
    """
    with grpc.insecure_channel(f"unix:{socket_path}") as channel:
        stub = api_pb2_grpc.PodResourcesListerStub(channel)
        reply = stub.List(api_pb2.ListPodResourcesRequest(), timeout=timeout_s)
    found: dict[str, PodRef] = {}
    for pod in reply.pod_resources:
        ref = PodRef(pod.namespace, pod.name)
        for container in pod.containers:
            for devices in container.devices:
                if devices.resource_name.startswith(GPU_RESOURCE_PREFIX):
                    for device_id in devices.device_ids:
                        found[device_id] = ref
    return found


def pods_by_gpu(
    device_pods: Mapping[str, PodRef], gpus: Iterable[tuple[int, str | None]]
) -> dict[int, PodRef | None]:
    """GPU index -> the one pod holding it (by UUID or GKE device name), else None."""
    gpus = list(gpus)
    holders: dict[int, set[PodRef]] = {}
    by_uuid = {uuid: index for index, uuid in gpus if uuid}
    indexes = {index for index, _ in gpus} | set(by_uuid.values())
    for device_id, pod in device_pods.items():
        index = by_uuid.get(device_id)
        if index is None and (match := _GKE_DEVICE.match(device_id)):
            index = int(match.group(1))
        if index is not None and index in indexes:
            holders.setdefault(index, set()).add(pod)
    return {i: next(iter(holders[i])) if len(holders.get(i, ())) == 1 else None for i in indexes}


UidLookup = Callable[[str, str], "str | None"]


class PodResolver:
    """The agent's view of GPU -> pod, refreshed from the kubelet every `refresh_s`.

    `uid_lookup(namespace, name)` (optional) gives a pod's UID; answers are cached per
    namespace/name for as long as the pod holds a GPU.
    """

    def __init__(
        self,
        socket_path: Path | None = DEFAULT_SOCKET,
        *,
        refresh_s: float = 10.0,
        timeout_s: float = 2.0,
        uid_lookup: UidLookup | None = None,
    ) -> None:
        self.socket_path = socket_path
        self.refresh_s = refresh_s
        self.timeout_s = timeout_s
        self.uid_lookup = uid_lookup
        self.errors = 0
        self.enabled = socket_path is not None and Path(socket_path).exists()
        self._device_pods: dict[str, PodRef] = {}
        self._uids: dict[tuple[str, str], str | None] = {}
        self._next_refresh_s: float | None = None
        self._failing = False
        if socket_path is not None and not self.enabled:
            log.info("no kubelet pod-resources socket at %s: GPUs not labelled by pod", socket_path)

    def refresh(self, now_s: float) -> None:
        """Ask the kubelet again if `refresh_s` has passed since the last answer."""
        if not self.enabled or (self._next_refresh_s is not None and now_s < self._next_refresh_s):
            return
        self._next_refresh_s = now_s + self.refresh_s
        assert self.socket_path is not None
        try:
            device_pods = list_device_pods(self.socket_path, self.timeout_s)
        except grpc.RpcError as exc:
            self.errors += 1
            if not self._failing:
                log.warning("kubelet PodResources List failed (keeping last answer): %s", exc)
            self._failing = True
            return
        if self._failing:
            log.info("kubelet PodResources List answers again")
        self._failing = False
        self._device_pods = {d: self._with_uid(p) for d, p in device_pods.items()}
        held = {(p.namespace, p.name) for p in device_pods.values()}
        self._uids = {k: v for k, v in self._uids.items() if k in held}

    def _with_uid(self, pod: PodRef) -> PodRef:
        if self.uid_lookup is None:
            return pod
        key = (pod.namespace, pod.name)
        if key not in self._uids:
            self._uids[key] = self.uid_lookup(pod.namespace, pod.name)
        return PodRef(pod.namespace, pod.name, self._uids[key])

    def pods(self, gpus: Iterable[tuple[int, str | None]]) -> dict[int, PodRef | None]:
        """GPU index -> pod for the GPUs given as (index, uuid)."""
        return pods_by_gpu(self._device_pods, gpus) if self._device_pods else {}
