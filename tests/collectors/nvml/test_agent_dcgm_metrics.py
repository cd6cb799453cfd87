"""The agent's /metrics carries each GPU's last reading under dcgm-exporter's names and labels
(issue 39, item 7), so a Grafana dashboard made for dcgm-exporter works against it unchanged.

The names and kinds are checked against dcgm-exporter's own counters files (its 4.5.3-4.8.2
release, tests/fixtures/dcgm_exporter/); the values against what the simulated NVML itself
answers at the moment of the scrape (its clock held still while it is scraped), in
dcgm-exporter's units; the labels against the GPUs' own identities."""

from __future__ import annotations

import re
import threading
from pathlib import Path

from nvml_fakes import LABELS, START
from prometheus_client.parser import text_string_to_metric_families

from flopledger.collectors.nvml.agent import Agent, AgentConfig
from flopledger.collectors.nvml.dcgm_fields import FIELDS
from flopledger.collectors.nvml.nvml import Nvml
from flopledger.collectors.nvml.simulated import SimulatedNvml
from tests.collectors.nvml.nvml_fakes import ManualClock
from tests.collectors.nvml.test_agent_health import get

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "dcgm_exporter"
# A counters file's line, commented out or not: `DCGM_FI_..., gauge, help`.
COUNTER_LINE = re.compile(r"^#?\s*(DCGM_FI_\w+)\s*,\s*(\w+)\s*,", re.M)
MINORS = [3, 1, 0, 2]  # the driver's /dev/nvidia<minor>, not the NVML index


def _dcgm_kinds() -> dict[str, str]:
    kinds: dict[str, str] = {}
    for name in ("default-counters.csv", "dcp-metrics-included.csv"):
        kinds |= dict(COUNTER_LINE.findall((FIXTURES / name).read_text()))
    return kinds


def test_every_field_is_dcgm_exporters_name_and_kind() -> None:
    kinds = _dcgm_kinds()
    assert len(kinds) > 40  # both files read
    assert {f.name: f.kind for f in FIELDS} == {f.name: kinds.get(f.name) for f in FIELDS}


class ScrapingClock(ManualClock):
    """Scrapes /metrics once, right after the tick at t = 30, and asks the simulated NVML at
    that same instant what it says of each GPU."""

    def __init__(self, epoch_s: float) -> None:
        super().__init__(epoch_s)
        self.agent: Agent | None = None
        self.backend: SimulatedNvml | None = None
        self.text = ""
        self.truth: dict[str, dict[str, float]] = {}

    def wait(self, seconds: float, stop: threading.Event) -> None:
        assert self.agent is not None and self.agent.health_server is not None
        if self.monotonic_s == 30 and not self.text:
            self.text = get(self.agent.health_server.port, "/metrics")[1]
            self.truth = _nvml_truth(self.backend)
        super().wait(seconds, stop)


def _nvml_truth(backend: SimulatedNvml | None) -> dict[str, dict[str, float]]:
    """What the simulated NVML says of each GPU now, in dcgm-exporter's units, by UUID."""
    assert backend is not None
    lib = backend
    truth = {}
    for i in range(lib.nvmlDeviceGetCount()):
        handle = lib.nvmlDeviceGetHandleByIndex(i)
        util = lib.nvmlDeviceGetUtilizationRates(handle)
        memory = lib.nvmlDeviceGetMemoryInfo(handle)
        truth[lib.nvmlDeviceGetUUID(handle)] = {
            "DCGM_FI_DEV_GPU_UTIL": float(util.gpu),
            "DCGM_FI_DEV_MEM_COPY_UTIL": float(util.memory),
            "DCGM_FI_DEV_POWER_USAGE": lib.nvmlDeviceGetPowerUsage(handle) / 1000,  # mW -> W
            "DCGM_FI_DEV_FB_USED": memory.used / 2**20,  # bytes -> MiB
            "DCGM_FI_DEV_FB_FREE": (memory.total - memory.used) / 2**20,
        }
    return truth


def test_the_agent_exports_each_gpus_reading_under_dcgm_names(tmp_path: Path) -> None:
    clock = ScrapingClock(epoch_s=START.timestamp())
    backend = SimulatedNvml("training", gpus=4, clock=clock.monotonic, minor_numbers=MINORS)
    config = AgentConfig(
        spool_dir=tmp_path / "spool",
        labels=LABELS,
        duration_s=40.0,
        health_address=("127.0.0.1", 0),
    )
    agent = Agent(config, Nvml(backend), clock=clock)
    clock.agent, clock.backend = agent, backend
    assert agent.run(threading.Event()) == 0
    families = {f.name: f for f in text_string_to_metric_families(clock.text)}
    dcgm = {name: f for name, f in families.items() if name.startswith("DCGM_FI_")}
    assert set(dcgm) <= {f.name for f in FIELDS}
    for name in ("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_FB_USED"):
        assert name in dcgm
    uuids = sorted(clock.truth)
    for name, family in dcgm.items():
        assert family.type == (
            "gauge" if name != "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION" else "unknown"
        )
        labels = sorted((s.labels for s in family.samples), key=lambda lab: int(lab["gpu"]))
        # dcgm-exporter's labels, one series per GPU: index, UUID, PCI address, the driver's
        # device name, model, host.
        assert [lab["gpu"] for lab in labels] == ["0", "1", "2", "3"], name
        assert sorted(lab["UUID"] for lab in labels) == uuids
        assert [lab["device"] for lab in labels] == [f"nvidia{m}" for m in MINORS]
        assert [lab["pci_bus_id"] for lab in labels] == [
            "00000000:18:00.0", "00000000:28:00.0", "00000000:38:00.0", "00000000:48:00.0"
        ]  # fmt: skip
        assert {lab["Hostname"] for lab in labels} == {LABELS.node}
        assert {lab["modelName"] for lab in labels} == {backend.gpu_name}
        assert all(
            set(lab) == {"gpu", "UUID", "pci_bus_id", "device", "modelName", "Hostname"}
            for lab in labels
        )
    for name in clock.truth[uuids[0]]:
        shown = {s.labels["UUID"]: s.value for s in dcgm[name].samples}
        assert shown == {u: clock.truth[u][name] for u in uuids}, name


def test_a_gpu_a_pod_holds_is_labelled_with_its_pod() -> None:
    from flopledger.collectors.nvml.dcgm_fields import GpuIdentity, gpu_labels

    gpu = GpuIdentity(2, "GPU-1", None, None, "NVIDIA H100 80GB HBM3")
    assert gpu_labels(gpu, "node-7", ("ml-research", "train-0")) == {
        "gpu": "2", "UUID": "GPU-1", "pci_bus_id": "", "device": "nvidia2",
        "modelName": "NVIDIA H100 80GB HBM3", "Hostname": "node-7",
        "namespace": "ml-research", "pod": "train-0",
    }  # fmt: skip
