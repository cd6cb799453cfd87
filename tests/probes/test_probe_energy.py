"""The optional NVML energy hook: present, absent, failing."""

from __future__ import annotations

import sys
import types

import pytest

from probes.energy import NVML_MODULE, energy_between_j, nvml_energy_meter


def _fake_nvml(read: object) -> types.ModuleType:
    module = types.ModuleType(NVML_MODULE)
    module.total_energy_mj = read  # type: ignore[attr-defined]
    return module


def test_meter_reads_millijoules_as_joules(monkeypatch: pytest.MonkeyPatch) -> None:
    counters = {3: iter([1_000_000, 1_250_500])}  # mJ on GPU 3: 1000 J then 1250.5 J
    monkeypatch.setitem(sys.modules, NVML_MODULE, _fake_nvml(lambda i: next(counters[i])))
    meter = nvml_energy_meter("gpu", 3)
    assert meter is not None
    before, after = meter(), meter()
    assert (before, after) == (1000.0, 1250.5)
    assert energy_between_j(before, after) == 250.5


def test_no_meter_off_gpu_or_without_the_module(monkeypatch: pytest.MonkeyPatch) -> None:
    assert nvml_energy_meter("cpu", 0) is None
    assert nvml_energy_meter("tpu", 0) is None
    monkeypatch.setitem(
        sys.modules, NVML_MODULE, types.ModuleType(NVML_MODULE)
    )  # no total_energy_mj
    assert nvml_energy_meter("gpu", 0) is None


def test_unsupported_or_failing_counter_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(_: int) -> int:
        raise RuntimeError("NVML_ERROR_GPU_IS_LOST")

    monkeypatch.setitem(sys.modules, NVML_MODULE, _fake_nvml(broken))
    meter = nvml_energy_meter("gpu", 0)
    assert meter is not None and meter() is None
    monkeypatch.setitem(sys.modules, NVML_MODULE, _fake_nvml(lambda _: None))
    meter = nvml_energy_meter("gpu", 0)
    assert meter is not None and meter() is None
    assert energy_between_j(None, 5.0) is None
    assert energy_between_j(10.0, 5.0) is None  # counter reset (driver reload): unknown


def test_the_real_nvml_module_has_the_hook() -> None:
    # The contract with collectors/nvml/nvml.py: total_energy_mj(gpu_index) -> int | None.
    meter = nvml_energy_meter("gpu", 0)
    assert meter is not None  # the module and function are there
    reading = meter()  # None without an NVIDIA driver (unknown, not 0); joules on a GPU node
    assert reading is None or reading >= 0
