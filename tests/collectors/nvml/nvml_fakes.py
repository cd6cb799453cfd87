"""Helpers for the NVML agent tests: run the real agent on a simulated NVML in no time."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path

import polars as pl

from flopledger.collectors.nvml.agent import Agent, AgentConfig
from flopledger.collectors.nvml.labels import NodeLabels
from flopledger.collectors.nvml.nvml import Nvml
from flopledger.collectors.nvml.read import read_spool
from flopledger.collectors.nvml.simulated import SimulatedNvml

START = datetime(2026, 7, 14, 8, 0, 0, tzinfo=UTC)  # a minute boundary
LABELS = NodeLabels(node="a3-node-1", project_id="ml-prod", resource_name="a3-highgpu-8g-1")


class ManualClock:
    """A clock that only moves when the agent waits: simulated minutes in no time.

    For the tests and benchmarks/agent_cpu.py. `epoch_s` is the UTC wall time at monotonic 0.
    """

    def __init__(self, epoch_s: float) -> None:
        self.monotonic_s = 0.0
        self.epoch_s = epoch_s

    def monotonic(self) -> float:
        return self.monotonic_s

    def time(self) -> float:
        return self.epoch_s + self.monotonic_s

    def wait(self, seconds: float, stop: threading.Event) -> None:
        self.monotonic_s += max(0.0, seconds)


def run_simulated(
    spool: Path, scenario: str, minutes: int = 3, gpus: int = 8
) -> tuple[Agent, pl.DataFrame]:
    """The agent, 1 Hz, for `minutes` simulated minutes from START; its rows as read back."""
    clock = ManualClock(epoch_s=START.timestamp())
    backend = SimulatedNvml(scenario, gpus=gpus, clock=clock.monotonic)
    config = AgentConfig(spool_dir=spool, labels=LABELS, duration_s=60.0 * minutes)
    agent = Agent(config, Nvml(backend), clock=clock)
    assert agent.run(threading.Event()) == 0
    table, quarantined = read_spool([spool])
    assert quarantined == []
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    return agent, frame


def minute(n: int) -> datetime:
    """START + n minutes, naive (the warehouse's UTC convention)."""
    return datetime(2026, 7, 14, 8, n, 0)
