"""One tiny simulated fleet, shared by the simulator tests (simulating is the slow part)."""

from __future__ import annotations

from pathlib import Path

import pytest

from flopledger.simulator import SimulationResult, simulate

TINY = {"gpus": 40, "tpu_chips": 24, "days": 3, "seed": 7}


@pytest.fixture(scope="session")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> SimulationResult:
    return simulate(tmp_path_factory.mktemp("tiny"), **TINY)


def files_of(result: SimulationResult, pattern: str) -> list[Path]:
    return sorted(p for p in result.out_dir.glob(pattern) if p.is_file())
