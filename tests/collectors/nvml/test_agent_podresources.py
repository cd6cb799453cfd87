"""The agent's pod labels: the real PodResources v1 client against an in-process gRPC server
speaking the kubelet's own proto (collectors/nvml/kubelet/api.proto) on a unix socket."""

from __future__ import annotations

import json
import tempfile
import threading
from collections.abc import Callable, Iterator
from concurrent import futures
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import grpc
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from nvml_fakes import LABELS, START, minute

from flopledger.collectors.nvml.agent import Agent, AgentConfig
from flopledger.collectors.nvml.kubelet import api_pb2, api_pb2_grpc
from flopledger.collectors.nvml.labels import kube_pod_uid
from flopledger.collectors.nvml.nvml import Nvml
from flopledger.collectors.nvml.podresources import (
    PodRef,
    PodResolver,
    list_device_pods,
    pods_by_gpu,
)
from flopledger.collectors.nvml.read import read_spool
from flopledger.collectors.nvml.schema import SCHEMA_VERSION_KEY, SPOOL_COLUMNS, rows_to_table
from flopledger.collectors.nvml.simulated import SimulatedNvml
from tests.collectors.nvml.nvml_fakes import ManualClock
from tests.conftest import HANG_S


def uuid(index: int) -> str:
    """The simulated NVML's UUID for GPU `index` (collectors/nvml/simulated.py)."""
    return f"GPU-5e1f0000-0000-4000-8000-{index:012x}"


def pod(
    namespace: str, name: str, *containers: list[tuple[str, list[str]]]
) -> api_pb2.PodResources:
    return api_pb2.PodResources(
        namespace=namespace,
        name=name,
        containers=[
            api_pb2.ContainerResources(
                name=f"c{i}",
                devices=[
                    api_pb2.ContainerDevices(resource_name=r, device_ids=ids) for r, ids in devs
                ],
            )
            for i, devs in enumerate(containers)
        ],
    )


class Kubelet(api_pb2_grpc.PodResourcesListerServicer):
    """Answers `List` with whatever `pods()` says now."""

    def __init__(self, pods: Callable[[], list[api_pb2.PodResources]]) -> None:
        self.pods = pods
        self.calls = 0

    def List(self, request, context):  # noqa: N802 (the proto's name)
        self.calls += 1
        return api_pb2.ListPodResourcesResponse(pod_resources=self.pods())


@pytest.fixture
def socket_dir() -> Iterator[Path]:
    # A unix socket path must stay under ~107 bytes: pytest's tmp_path can be longer.
    with tempfile.TemporaryDirectory(dir="/tmp", prefix="kubelet") as d:
        yield Path(d)


def serve(kubelet: Kubelet, socket: Path) -> grpc.Server:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    api_pb2_grpc.add_PodResourcesListerServicer_to_server(kubelet, server)
    server.add_insecure_port(f"unix:{socket}")
    server.start()
    return server


def test_agent_podresources_client_lists_only_gpu_devices(socket_dir: Path) -> None:
    pods = [
        pod("ml", "train-a", [("nvidia.com/gpu", [uuid(0), uuid(1)])]),
        pod("ml", "infer-b", [("nvidia.com/gpu", ["nvidia2"])], [("cpu", [])]),
        pod("ml", "mig-c", [("nvidia.com/mig-1g.18gb", ["nvidia4/gi1"])]),
        pod("kube-system", "dns", [("example.com/fpga", ["fpga0"])]),
        pod("default", "no-devices"),
    ]
    kubelet = Kubelet(lambda: pods)
    server = serve(kubelet, socket_dir / "kubelet.sock")
    try:
        found = list_device_pods(socket_dir / "kubelet.sock")
    finally:
        server.stop(None)
    assert found == {
        uuid(0): PodRef("ml", "train-a"),
        uuid(1): PodRef("ml", "train-a"),
        "nvidia2": PodRef("ml", "infer-b"),
        "nvidia4/gi1": PodRef("ml", "mig-c"),
    }
    assert kubelet.calls == 1


def test_agent_pods_by_gpu_uuid_gke_names_and_mig() -> None:
    a, b, c, d = (PodRef("ml", n) for n in ("a", "b", "c", "d"))
    device_pods = {
        uuid(0): a,  # NVIDIA device plugin: by UUID
        "nvidia1": b,  # GKE device plugin: by device file
        "nvidia3/gi1": c,  # GKE MIG: two slices of GPU 3 to two pods -> no single holder
        "nvidia3/gi2": d,
        "nvidia4/gi0": c,  # one slice of GPU 4, nothing else on it -> c
        "MIG-0d7e3b6c-0000-0000-0000-000000000000": d,  # a MIG UUID: parent unknown here
        "nvidia9": a,  # not a GPU of this node
    }
    gpus = [(i, uuid(i)) for i in range(6)]
    minors = {i: i for i in range(6)}
    assert pods_by_gpu(device_pods, gpus, minors) == {0: a, 1: b, 2: None, 3: None, 4: c, 5: None}


def test_agent_pods_by_gpu_maps_gke_names_by_minor_number() -> None:
    """GKE's `nvidia<N>` is /dev/nvidia<N>, N the device minor number, not the NVML index.
    Minor numbers by NVML index 0..3: 2, 3, 0, 1 (NVML orders by PCI bus, the driver its
    own way). `nvidia0` is therefore GPU 2, `nvidia3` GPU 1, `nvidia1/gi0` (a MIG slice of
    minor 1) GPU 3; GPU 0 (minor 2) is nobody's. Without minor numbers a GKE name matches
    no GPU (never guessed from the index); UUIDs still match."""
    a, b, c = PodRef("ml", "a"), PodRef("ml", "b"), PodRef("ml", "c")
    device_pods = {"nvidia0": a, "nvidia3": b, "nvidia1/gi0": c}
    gpus = [(i, uuid(i)) for i in range(4)]
    minors = {0: 2, 1: 3, 2: 0, 3: 1}
    assert pods_by_gpu(device_pods, gpus, minors) == {0: None, 1: b, 2: a, 3: c}
    assert pods_by_gpu(device_pods, gpus) == {0: None, 1: None, 2: None, 3: None}
    assert pods_by_gpu({uuid(3): a}, gpus) == {0: None, 1: None, 2: None, 3: a}


class KubeApi(BaseHTTPRequestHandler):
    """The API server's `GET /api/v1/namespaces/NS/pods/NAME`, enough for `metadata.uid`."""

    seen_tokens: list[str] = []  # noqa: RUF012 (test stand-in state)

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        parts = self.path.strip("/").split("/")
        KubeApi.seen_tokens.append(self.headers.get("Authorization", ""))
        if parts[:3] != ["api", "v1", "namespaces"] or parts[4] != "pods" or parts[5] == "gone":
            self.send_response(404)
            self.end_headers()
            return
        body = json.dumps({"metadata": {"name": parts[5], "uid": f"uid-{parts[5]}"}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):  # quiet
        pass


def run_agent(
    spool: Path, resolver: PodResolver, clock: ManualClock, minutes: int = 2, gpus: int = 4
) -> tuple[Agent, pl.DataFrame]:
    backend = SimulatedNvml("training", gpus=gpus, clock=clock.monotonic)
    config = AgentConfig(spool_dir=spool, labels=LABELS, duration_s=60.0 * minutes)
    agent = Agent(config, Nvml(backend), clock=clock, pods=resolver)
    assert agent.run(threading.Event()) == 0
    table, quarantined = read_spool([spool])
    assert quarantined == []
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    return agent, frame


def test_agent_labels_minutes_by_pod_through_a_pod_swap(tmp_path: Path, socket_dir: Path) -> None:
    """GPU 0 goes from train-a to train-c at t = 40 s; GPU 1 is train-a's throughout (GKE
    name nvidia1); GPUs 2 and 3 are nobody's. The agent asks the kubelet every 10 s (t = 0,
    10, ..., 110), so it sees the swap at t = 40: minute 0's readings of GPU 0 are train-a's
    at t = 0..39 (40 readings) and train-c's at t = 40..59 (20): the row says train-a;
    minute 1 (t = 60..119) is all train-c. 12 calls to the kubelet in 120 s.
    """
    clock = ManualClock(epoch_s=START.timestamp())

    def pods() -> list[api_pb2.PodResources]:
        gpu0 = "train-a" if clock.monotonic() < 40 else "train-c"
        if gpu0 == "train-a":
            return [pod("ml", "train-a", [("nvidia.com/gpu", [uuid(0), "nvidia1"])])]
        return [
            pod("ml", "train-a", [("nvidia.com/gpu", ["nvidia1"])]),
            pod("ml", "train-c", [("nvidia.com/gpu", [uuid(0)])]),
        ]

    kubelet = Kubelet(pods)
    server = serve(kubelet, socket_dir / "kubelet.sock")
    api = ThreadingHTTPServer(("127.0.0.1", 0), KubeApi)
    threading.Thread(target=api.serve_forever, daemon=True).start()
    account = tmp_path / "sa"
    account.mkdir()
    (account / "token").write_text("sa-token\n")
    url = f"http://127.0.0.1:{api.server_port}"
    KubeApi.seen_tokens.clear()
    resolver = PodResolver(
        socket_dir / "kubelet.sock",
        refresh_s=10.0,
        uid_lookup=lambda ns, name: kube_pod_uid(ns, name, api_url=url, account_dir=account),
    )
    try:
        _, rows = run_agent(tmp_path / "spool", resolver, clock)
    finally:
        server.stop(None)
        api.shutdown()
        api.server_close()

    assert kubelet.calls == 12 and resolver.errors == 0
    got = rows.sort("minute", "gpu_index").select(
        "minute", "gpu_index", "pod_namespace", "pod_name", "pod_uid"
    )
    assert got.rows() == [
        (minute(0), 0, "ml", "train-a", "uid-train-a"),
        (minute(0), 1, "ml", "train-a", "uid-train-a"),
        (minute(0), 2, None, None, None),
        (minute(0), 3, None, None, None),
        (minute(1), 0, "ml", "train-c", "uid-train-c"),
        (minute(1), 1, "ml", "train-a", "uid-train-a"),
        (minute(1), 2, None, None, None),
        (minute(1), 3, None, None, None),
    ]
    # One API lookup per pod while it holds a GPU (cached), with the service-account token.
    assert KubeApi.seen_tokens == ["Bearer sa-token", "Bearer sa-token"]


def test_agent_keeps_sampling_when_the_kubelet_does_not_answer(
    tmp_path: Path, socket_dir: Path
) -> None:
    """A socket path that exists but nobody serves: every call fails (t = 0, 10, ..., 50 ->
    6 errors in one minute), rows come out unlabelled, the agent does not stop."""
    dead = socket_dir / "kubelet.sock"
    dead.write_text("")  # not a listening socket
    resolver = PodResolver(dead, refresh_s=10.0, timeout_s=0.5)
    clock = ManualClock(epoch_s=START.timestamp())
    agent, rows = run_agent(tmp_path / "spool", resolver, clock, minutes=1, gpus=2)
    assert resolver.errors == 6
    assert agent.snapshot().pod_lookup_errors == 6
    assert rows.height == 2 and rows["pod_name"].null_count() == 2


def test_agent_off_kubernetes_labels_nothing(tmp_path: Path) -> None:
    resolver = PodResolver(tmp_path / "no-such.sock")
    assert not resolver.enabled
    clock = ManualClock(epoch_s=START.timestamp())
    _, rows = run_agent(tmp_path / "spool", resolver, clock, minutes=1, gpus=2)
    assert rows["pod_uid"].null_count() == rows.height == 2


def test_agent_spool_version_1_file_still_loads_with_null_pods(tmp_path: Path) -> None:
    """A file the agent wrote before the pod columns (schema version 1) reads as before."""
    v2 = rows_to_table(
        [
            {
                "minute": datetime(2026, 7, 14, 8, 0),
                "node": "n1",
                "gpu_uuid": uuid(0),
                "gpu_index": 0,
                "samples": 60,
                "status": "ok",
                "pod_name": "x",
            }
        ]
    )
    assert v2.schema.metadata[SCHEMA_VERSION_KEY] == b"2"
    v1 = v2.select(list(SPOOL_COLUMNS[1])).replace_schema_metadata({SCHEMA_VERSION_KEY: b"1"})
    pq.write_table(v1, tmp_path / "gpu_samples_n1_20260714T080000Z_v1.parquet")
    table, quarantined = read_spool([tmp_path])
    assert quarantined == []
    assert table.num_rows == 1
    assert table.select(["pod_namespace", "pod_name", "pod_uid"]).to_pylist() == [
        {"pod_namespace": None, "pod_name": None, "pod_uid": None}
    ]
    assert table.column("samples").to_pylist() == [60]
    assert isinstance(table, pa.Table)


def test_agent_drops_pod_labels_when_the_kubelet_stays_silent(
    tmp_path: Path, socket_dir: Path
) -> None:
    """The kubelet answers until t = 30 s, then refuses. Asked every 10 s, keep_s 20 s: the
    last answer (t = 20) stands at t = 30 and 40 (10 and 20 s old), and is dropped at t = 50
    (30 s old). GPU 0 is train-a's for readings t = 0..49 (50 of minute 0's 60: the row says
    train-a) and unlabelled from t = 50: minute 1 has no pod. 3 errors in 0..59, 6 more in 60..119.
    """
    clock = ManualClock(epoch_s=START.timestamp())

    class Failing(Kubelet):
        def List(self, request, context):  # noqa: N802
            if clock.monotonic() >= 30:
                context.abort(grpc.StatusCode.UNAVAILABLE, "kubelet restarting")
            return super().List(request, context)

    kubelet = Failing(lambda: [pod("ml", "train-a", [("nvidia.com/gpu", [uuid(0)])])])
    server = serve(kubelet, socket_dir / "kubelet.sock")
    resolver = PodResolver(socket_dir / "kubelet.sock", refresh_s=10.0, keep_s=20.0)
    try:
        _, rows = run_agent(tmp_path / "spool", resolver, clock, minutes=2, gpus=1)
    finally:
        server.stop(None)
    assert rows.sort("minute")["pod_name"].to_list() == ["train-a", None]
    assert resolver.errors == 9


def test_agent_never_waits_for_a_hung_kubelet(tmp_path: Path, socket_dir: Path) -> None:
    """In background mode (the CLI's) a kubelet that never answers does not hold up
    sampling: a simulated minute (60 ticks) runs to its end while the kubelet holds the
    call, with unlabelled rows, and the call is counted as failed once it ends (the kubelet
    stopped). The client's deadline is a hang guard here: it never comes before the end."""
    entered, release = threading.Event(), threading.Event()

    class Hung(Kubelet):
        def List(self, request, context):  # noqa: N802
            entered.set()
            release.wait(HANG_S)
            return super().List(request, context)

    kubelet = Hung(lambda: [pod("ml", "train-a", [("nvidia.com/gpu", [uuid(0)])])])
    server = serve(kubelet, socket_dir / "kubelet.sock")
    resolver = PodResolver(socket_dir / "kubelet.sock", timeout_s=HANG_S, background=True)
    clock = ManualClock(epoch_s=START.timestamp())
    backend = SimulatedNvml("training", gpus=1, clock=clock.monotonic)
    config = AgentConfig(spool_dir=tmp_path / "spool", labels=LABELS, duration_s=60.0)
    agent = Agent(config, Nvml(backend), clock=clock, pods=resolver)
    stop = threading.Event()
    try:
        original_finish = agent.finish
        at_the_end: list[tuple[bool, int]] = []

        def finish() -> None:
            # The loop is done. The kubelet holds the call it got (it answers nothing before
            # `release`, set only after the run): the minute was sampled without an answer.
            at_the_end.append((entered.wait(HANG_S), resolver.errors))
            server.stop(None)  # ends the held call: the client sees it fail
            original_finish()

        agent.finish = finish  # type: ignore[method-assign]
        assert agent.run(stop) == 0
    finally:
        release.set()
        server.stop(None)
    assert at_the_end == [(True, 0)]  # the call was in flight, not yet failed, at the end
    assert agent.health.ticks == 60 and agent.health.late_ticks == 0
    table, _ = read_spool([tmp_path / "spool"])
    assert table.column("pod_name").to_pylist() == [None]
    assert resolver.errors == 1  # the held call, failed when the kubelet stopped, counted


def mig(gpu: int, slot: int) -> str:
    """The simulated NVML's UUID for MIG device `slot` of GPU `gpu` (scenario mig)."""
    return f"MIG-5e1f0000-0000-4000-8000-{gpu:06x}{slot:06x}"


def test_agent_ties_mig_slices_to_their_gpu(tmp_path: Path, socket_dir: Path) -> None:
    """Scenario mig: 2 GPUs in MIG mode, 2 MIG devices each (NVIDIA's device plugin hands
    out `nvidia.com/mig-3g.40gb` by MIG UUID). Both slices of GPU 0 are train-a's: GPU 0's
    row names it. GPU 1's slices went to train-a and infer-b: no single pod, no label."""
    pods = [
        pod("ml", "train-a", [("nvidia.com/mig-3g.40gb", [mig(0, 0), mig(0, 1), mig(1, 0)])]),
        pod("ml", "infer-b", [("nvidia.com/mig-3g.40gb", [mig(1, 1)])]),
    ]
    server = serve(Kubelet(lambda: pods), socket_dir / "kubelet.sock")
    clock = ManualClock(epoch_s=START.timestamp())
    backend = SimulatedNvml("mig", gpus=2, clock=clock.monotonic)
    config = AgentConfig(spool_dir=tmp_path / "spool", labels=LABELS, duration_s=60.0)
    agent = Agent(config, Nvml(backend), clock=clock, pods=PodResolver(socket_dir / "kubelet.sock"))
    try:
        assert agent.run(threading.Event()) == 0
    finally:
        server.stop(None)
    table, quarantined = read_spool([tmp_path / "spool"])
    assert quarantined == []
    got = table.sort_by("gpu_index").select(["gpu_index", "pod_name"]).to_pylist()
    assert got == [{"gpu_index": 0, "pod_name": "train-a"}, {"gpu_index": 1, "pod_name": None}]


def test_agent_sampler_lists_mig_devices_only_in_mig_mode() -> None:
    from flopledger.collectors.nvml.sampler import GpuSampler

    for scenario, expected in (("mig", [mig(1, 0), mig(1, 1)]), ("training", [])):
        clock = ManualClock(epoch_s=START.timestamp())
        sampler = GpuSampler(Nvml(SimulatedNvml(scenario, gpus=2, clock=clock.monotonic)))
        sampler.discover()
        assert sampler.gpus[1].mig_uuids == expected, scenario
        sampler.close()


def test_agent_labels_gke_device_names_by_minor_number(tmp_path: Path, socket_dir: Path) -> None:
    """A node whose driver numbered its device files against NVML's order: NVML GPU 0 is
    /dev/nvidia1, GPU 1 is /dev/nvidia0 (minor numbers 1, 0). GKE's device plugin gives
    `nvidia0` to infer-b: that is NVML GPU 1, so GPU 1's row names infer-b and GPU 0's none."""
    server = serve(
        Kubelet(lambda: [pod("ml", "infer-b", [("nvidia.com/gpu", ["nvidia0"])])]),
        socket_dir / "kubelet.sock",
    )
    clock = ManualClock(epoch_s=START.timestamp())
    backend = SimulatedNvml("training", gpus=2, clock=clock.monotonic, minor_numbers=[1, 0])
    config = AgentConfig(spool_dir=tmp_path / "spool", labels=LABELS, duration_s=60.0)
    agent = Agent(config, Nvml(backend), clock=clock, pods=PodResolver(socket_dir / "kubelet.sock"))
    try:
        assert agent.run(threading.Event()) == 0
    finally:
        server.stop(None)
    table, quarantined = read_spool([tmp_path / "spool"])
    assert quarantined == []
    got = table.sort_by("gpu_index").select(["gpu_index", "pod_name"]).to_pylist()
    assert got == [{"gpu_index": 0, "pod_name": None}, {"gpu_index": 1, "pod_name": "infer-b"}]
