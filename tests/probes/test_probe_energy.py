"""The probes' NVML energy meter, read through the one NVML door (collectors/nvml/nvml.py)
against the simulated NVML, and unknown (None, never 0) wherever NVML cannot answer."""

from __future__ import annotations

import sys

import pytest

from flopledger.collectors.nvml.nvml import Nvml
from flopledger.collectors.nvml.simulated import LOSS_AFTER_S, SimulatedNvml
from flopledger.probes.energy import energy_between_j, nvml_energy_meter


class Clock:
    def __init__(self) -> None:
        self.now_s = 0.0

    def __call__(self) -> float:
        return self.now_s


def test_meter_reads_the_energy_counter_in_joules() -> None:
    clock = Clock()
    meter = nvml_energy_meter("gpu", 1, Nvml(SimulatedNvml("idle", gpus=2, clock=clock)))
    assert meter is not None
    before = meter()
    clock.now_s = 20.0
    after = meter()
    # An idle H200 draws 77.67 W: 20 s = 1553.4 J (the counter is whole mJ: within 2 mJ).
    assert before is not None and after is not None
    assert energy_between_j(before, after) == pytest.approx(1553.4, abs=0.002)


def test_no_meter_off_gpu() -> None:
    assert nvml_energy_meter("cpu", 0) is None
    assert nvml_energy_meter("tpu", 0) is None


def test_unsupported_counter_lost_gpu_or_no_bindings_read_unknown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    unsupported = nvml_energy_meter("gpu", 0, Nvml(SimulatedNvml("not_supported", gpus=1)))
    assert unsupported is not None and unsupported() is None

    clock = Clock()
    lost = nvml_energy_meter("gpu", 3, Nvml(SimulatedNvml("gpu_lost", gpus=4, clock=clock)))
    assert lost is not None and lost() is not None
    clock.now_s = LOSS_AFTER_S
    assert lost() is None  # the GPU fell off the bus: unknown, not 0

    monkeypatch.setitem(sys.modules, "pynvml", None)  # no NVML bindings installed at all
    missing = nvml_energy_meter("gpu", 0)
    assert missing is not None and missing() is None


def test_energy_between_readings() -> None:
    assert energy_between_j(1000.0, 1250.5) == 250.5
    assert energy_between_j(None, 5.0) is None
    assert energy_between_j(10.0, 5.0) is None  # counter reset (driver reload): unknown
