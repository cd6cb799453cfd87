"""Agent CPU per GPU-second against the simulated NVML (goal: < 0.2 % of one core, 8 GPUs, 1 Hz).

Runs the real agent loop (sampling, aggregation, spool writes with fsync) on a manual
clock, so N simulated seconds take only the CPU they need. CPU time inside the
simulated NVML calls is measured separately (a timing proxy around the backend) and
subtracted: what is left is the agent's own cost, which is what a real node pays on
top of NVML's.

    .venv/bin/python benchmarks/agent_cpu.py [--seconds 1800] [--gpus 8]
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from flopledger.collectors.nvml.agent import Agent, AgentConfig
from flopledger.collectors.nvml.labels import NodeLabels
from flopledger.collectors.nvml.nvml import Nvml
from flopledger.collectors.nvml.simulated import SimulatedNvml
from tests.collectors.nvml.nvml_fakes import ManualClock


class TimedBackend:
    """Forwards every call to the simulated NVML, adding up the CPU time spent inside."""

    def __init__(self, backend: SimulatedNvml) -> None:
        self._backend = backend
        self.cpu_s = 0.0

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._backend, name)
        if not callable(target):
            return target

        def timed(*args: Any) -> Any:
            start = time.thread_time()
            try:
                return target(*args)
            finally:
                self.cpu_s += time.thread_time() - start

        return timed


def measure(seconds: int, gpus: int) -> dict[str, float]:
    clock = ManualClock(epoch_s=1_784_016_000.0)  # 2026-07-14 08:00:00 UTC
    backend = TimedBackend(SimulatedNvml("training", gpus=gpus, clock=clock.monotonic))
    with tempfile.TemporaryDirectory() as spool:
        config = AgentConfig(Path(spool), NodeLabels("bench", "p", "vm"), duration_s=seconds)
        agent = Agent(config, Nvml(backend), clock=clock)
        start = time.thread_time()
        agent.run(threading.Event())
        total_s = time.thread_time() - start
    agent_s = total_s - backend.cpu_s
    return {
        "total_cpu_s": total_s,
        "nvml_cpu_s": backend.cpu_s,
        "agent_cpu_s": agent_s,
        "agent_us_per_gpu_s": agent_s / (seconds * gpus) * 1e6,
        "agent_pct_core": agent_s / seconds * 100,  # at 1 Hz, per wall second
        "total_pct_core": total_s / seconds * 100,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=1800, help="simulated seconds (1800)")
    parser.add_argument("--gpus", type=int, default=8)
    args = parser.parse_args()
    measure(60, args.gpus)  # warm-up: imports, first Parquet write
    result = measure(args.seconds, args.gpus)
    print(f"{args.gpus} GPUs at 1 Hz for {args.seconds} simulated s:")
    print(
        f"  agent CPU (excl. NVML): {result['agent_us_per_gpu_s']:.1f} us per GPU-second, "
        f"{result['agent_pct_core']:.3f} % of one core"
    )
    print(
        f"  incl. simulated NVML:   {result['total_pct_core']:.3f} % of one core "
        f"(NVML part {result['nvml_cpu_s']:.2f} s of {result['total_cpu_s']:.2f} s)"
    )


if __name__ == "__main__":
    main()
