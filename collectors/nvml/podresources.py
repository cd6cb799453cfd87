"""Which Kubernetes pod holds each GPU: the kubelet's PodResources v1 gRPC API.

The kubelet serves `PodResourcesLister.List` on a unix socket
(`/var/lib/kubelet/pod-resources/kubelet.sock`); dcgm-exporter reads the same API. Each
container lists the device ids the device plugin gave it, per resource (`nvidia.com/gpu`,
`nvidia.com/mig-1g.10gb`, ...). Device ids name a GPU in one of two ways:

- NVIDIA's device plugin: the GPU UUID (`GPU-...`), or a MIG device's UUID (`MIG-...`,
  tied to its GPU by the sampler, which asks NVML for each GPU's MIG devices);
- GKE's device plugin: the device file, `nvidia<N>`, and `nvidia<N>/gi<M>` for MIG slice M
  of GPU N. N is the GPU's device minor number (`/dev/nvidia<N>`), not its NVML index (NVML
  orders GPUs by PCI bus; the driver numbers device files its own way), so the sampler asks
  NVML for each GPU's minor number (`nvmlDeviceGetMinorNumber`, as dcgm-exporter maps them)
  and a GKE name is matched by it; a GPU whose minor number NVML did not give is matched by
  UUID only.

A GPU held by exactly one pod is labelled with that pod; a GPU held by none, or whose MIG
slices went to several pods, is labelled with nothing (the minute's row then says null).

Known limitation (MIG): the agent writes one row per GPU and minute, so a GPU whose slices
are held by two or more pods cannot be attributed: its minutes land in pod_gpu_hourly's
no-pod row, beside truly unallocated time. Per-slice rows would need per-MIG-device
readings, which NVML gives only partly (utilisation and power are per GPU,
`nvmlDeviceGetUtilizationRates` is not supported on a MIG device; Hopper's GPM can sample a
GPU instance with `nvmlGpmMigSampleGet`), and a `mig_uuid` in the row's key; not done.

The API gives namespace and name, not the pod UID; `PodResolver` fills the UID from the
Kubernetes API where it is given a lookup (see `labels.kube_pod_uid`).

Off Kubernetes (no socket) the watcher is off and every GPU is unlabelled. A kubelet that
does not answer is logged once per outage and counted; the agent keeps sampling, on its
own thread in production (`background=True`), so a hung kubelet never delays a tick.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import grpc

from flopledger.collectors.nvml.kubelet import api_pb2, api_pb2_grpc

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
    device_pods: Mapping[str, PodRef],
    gpus: Iterable[tuple[int, str | None]],
    minors: Mapping[int, int] | None = None,
) -> dict[int, PodRef | None]:
    """GPU index -> the one pod holding it (by UUID or GKE device name), else None.

    `gpus` is (index, UUID) pairs; a GPU in MIG mode appears once more per MIG device,
    with that device's UUID. `minors` is NVML index -> device minor number: GKE's
    `nvidia<N>` is the GPU whose minor number is N (no minor number: no GKE match)."""
    gpus = list(gpus)
    holders: dict[int, set[PodRef]] = {}
    by_uuid = {uuid: index for index, uuid in gpus if uuid}
    by_minor = {minor: index for index, minor in (minors or {}).items()}
    indexes = {index for index, _ in gpus} | set(by_uuid.values())
    for device_id, pod in device_pods.items():
        index = by_uuid.get(device_id)
        if index is None and (match := _GKE_DEVICE.match(device_id)):
            index = by_minor.get(int(match.group(1)))
        if index is not None and index in indexes:
            holders.setdefault(index, set()).add(pod)
    return {i: next(iter(holders[i])) if len(holders.get(i, ())) == 1 else None for i in indexes}


UidLookup = Callable[[str, str], "str | None"]


class PodResolver:
    """The agent's view of GPU -> pod, refreshed from the kubelet every `refresh_s`.

    `uid_lookup(namespace, name)` (optional) gives a pod's UID; answers are cached per
    namespace/name for as long as the pod holds a GPU. With `background=True` (the CLI)
    a daemon thread asks the kubelet and the API server, so a slow or hung one never
    delays a sampling tick; otherwise (tests, on a manual clock) `refresh(now_s)` asks
    in line. A failed call keeps the last answer for `keep_s` (default 3 x `refresh_s`),
    then the GPUs go unlabelled rather than name a pod that may be gone.
    """

    def __init__(
        self,
        socket_path: Path | None = DEFAULT_SOCKET,
        *,
        refresh_s: float = 10.0,
        timeout_s: float = 2.0,
        keep_s: float | None = None,
        uid_lookup: UidLookup | None = None,
        background: bool = False,
    ) -> None:
        self.socket_path = socket_path
        self.refresh_s = refresh_s
        self.timeout_s = timeout_s
        self.keep_s = keep_s if keep_s is not None else 3 * refresh_s
        self.uid_lookup = uid_lookup
        self.background = background
        self.errors = 0
        self.enabled = socket_path is not None and Path(socket_path).exists()
        self._device_pods: dict[str, PodRef] = {}
        self._uids: dict[tuple[str, str], str | None] = {}
        self._next_refresh_s: float | None = None
        self._last_ok_s: float | None = None
        self._failing = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if socket_path is not None and not self.enabled:
            log.info("no kubelet pod-resources socket at %s: GPUs not labelled by pod", socket_path)

    def start(self) -> None:
        """In background mode: start asking the kubelet every `refresh_s` on a thread."""
        if not (self.background and self.enabled) or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._loop, name="pod-resources", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(self.timeout_s + 5.0)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self._ask(time.monotonic())
            except Exception:  # never let the thread die silently
                log.exception("pod-resources thread: unexpected error")
            self._stop.wait(self.refresh_s)

    def refresh(self, now_s: float) -> None:
        """In line (not background): ask the kubelet if `refresh_s` has passed."""
        if self.background or not self.enabled:
            return
        if self._next_refresh_s is not None and now_s < self._next_refresh_s:
            return
        self._next_refresh_s = now_s + self.refresh_s
        self._ask(now_s)

    def _ask(self, now_s: float) -> None:
        assert self.socket_path is not None
        try:
            device_pods = list_device_pods(self.socket_path, self.timeout_s)
        except grpc.RpcError as exc:
            self.errors += 1
            if not self._failing:
                log.warning("kubelet PodResources List failed (keeping last answer): %s", exc)
            self._failing = True
            if self._device_pods and (
                self._last_ok_s is None or now_s - self._last_ok_s > self.keep_s
            ):
                log.warning(
                    "kubelet silent for over %.0fs: GPUs no longer labelled by pod", self.keep_s
                )
                self._device_pods = {}
            return
        if self._failing:
            log.info("kubelet PodResources List answers again")
        self._failing = False
        self._last_ok_s = now_s
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

    def pods(
        self, gpus: Iterable[tuple[int, str | None]], minors: Mapping[int, int] | None = None
    ) -> dict[int, PodRef | None]:
        """GPU index -> pod for the GPUs given as (index, uuid), from the latest answer;
        `minors` (index -> device minor number) matches GKE's `nvidia<N>` names."""
        device_pods = self._device_pods  # one read: the thread swaps it whole
        return pods_by_gpu(device_pods, gpus, minors) if device_pods else {}
