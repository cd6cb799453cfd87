"""A real (tiny) CPU sweep, and the sweep's arithmetic with a fake clock and a fake energy meter."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime
from pathlib import Path

import pytest

from flopledger.probes import PROBE_VERSION
from flopledger.probes.cli import main
from flopledger.probes.results import ProbeResult
from flopledger.probes.shapes import Shape, parse_shapes
from flopledger.probes.sweep import Sweep, SweepConfig, run_sweep
from flopledger.probes.timing import TimingPolicy

FIELD_NAMES = tuple(f.name for f in dataclasses.fields(ProbeResult))  # a result's columns

TICK_S = 2.0**-10


def test_tiny_real_cpu_sweep_gives_verified_rows() -> None:
    shapes = (Shape(64, 64, 64), Shape(32, 48, 16))
    policy = TimingPolicy(
        warmup_calls=1, min_sample_s=0.001, budget_s=0.01, min_samples=2, max_samples=5
    )
    config = SweepConfig(("fp32", "bf16", "fp16", "tf32"), shapes, "tiny", policy=policy)
    results = run_sweep(config)
    assert [(r.dtype, r.m, r.n, r.k) for r in results] == [
        (d, *s) for d in ("fp32", "bf16", "fp16", "tf32") for s in shapes
    ]
    for r in results:
        assert r.verified, r.failure
        assert r.backend == "cpu" and r.device_kind == "cpu" and r.accelerator_type is None
        assert r.achieved_tflops is not None and r.achieved_tflops >= (r.median_tflops or 0) > 0
        assert r.verify_error_ratio is not None and r.verify_error_ratio < 1
        assert r.energy_j is None  # no NVML on a CPU: unknown, not 0
        assert r.probe_version == PROBE_VERSION
    fp32 = [r for r in results if r.dtype == "fp32"]
    assert all(
        r.peak_tflops_spec and r.peak_source and r.peak_source.startswith("estimate: best numpy")
        for r in fp32
    )
    assert all(r.peak_tflops_spec is None for r in results if r.dtype in ("bf16", "fp16"))
    measured = {r.dtype for r in results if r.achieved_tflops is not None}
    assert measured == {"fp32", "bf16", "fp16", "tf32"}


class TickClock:
    """Every reading is one tick after the last: each timed batch reads exactly one tick."""

    def __init__(self) -> None:
        self.ticks = 0

    def __call__(self) -> float:
        self.ticks += 1
        return self.ticks * TICK_S


def test_speed_efficiency_and_energy_arithmetic_with_fakes() -> None:
    # Each batch reads 1 tick (2^-10 s). Policy: min_sample 1 tick -> reps 1; budget 4 ticks -> 4 samples.
    # 64^3 cube: 2 * 64^3 = 524288 FLOPs per call; best = 524288 / 2^-10 s = 536870912 FLOP/s
    # = 0.000536870912 TFLOP/s; median and best equal, spread 0%.
    # The CPU peak estimate (numpy) is timed with the same clock: the same 0.000536870912, so efficiency 1.
    # Energy: the meter reads 100 J then 150 J -> 50 J over 4 calls = 2097152 FLOPs -> 4.194304e-8 TFLOP/J.
    readings = iter([100.0, 150.0])
    policy = TimingPolicy(warmup_calls=1, min_sample_s=TICK_S, budget_s=4 * TICK_S, min_samples=1)
    config = SweepConfig(("fp32",), (Shape(64, 64, 64),), "fake", policy=policy)
    when = datetime(2025, 3, 1, 12, 0, 0)
    sweep = Sweep(config, clock=TickClock(), now=lambda: when, energy=lambda: next(readings))
    (r,) = sweep.run()
    assert r.verified and r.measured_at == when and r.iterations == 4
    assert r.achieved_tflops == pytest.approx(0.000536870912)
    assert r.median_tflops == pytest.approx(0.000536870912)
    assert r.spread_pct == 0.0
    assert r.efficiency == pytest.approx(1.0)
    assert r.energy_j == 50.0 and r.window_s == 4 * TICK_S
    assert r.tflops_per_w == pytest.approx(4.194304e-8)
    (again,) = Sweep(config, clock=TickClock(), now=lambda: when, energy=lambda: None).run()
    assert again.result_id == r.result_id  # same node, time, device, dtype and shape: same id


def test_cli_writes_jsonl_and_a_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "probe.jsonl"
    argv = [
        "--quick",
        "--shapes",
        "32,16x24x8",
        "--dtype",
        "fp32,bf16",
        "--out",
        str(out),
        "--node",
        "n1",
        "--seconds-per-shape",
        "0.005",
    ]
    assert main(argv) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 4 and tuple(lines[0]) == FIELD_NAMES
    assert {(x["dtype"], x["m"], x["n"], x["k"], x["node"], x["verified"]) for x in lines} == {
        ("fp32", 32, 32, 32, "n1", True),
        ("fp32", 16, 24, 8, "n1", True),
        ("bf16", 32, 32, 32, "n1", True),
        ("bf16", 16, 24, 8, "n1", True),
    }
    assert lines[0]["measured_at"].endswith("Z")
    captured = capsys.readouterr()
    assert "probe [4/4] bf16 16x24x8" in captured.err
    assert "best TFLOP/s" in captured.out and "2/2" in captured.out


def test_cli_refuses_a_bad_dtype(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--dtype", "fp64", "--shapes", "8"]) == 2
    assert "unknown probe dtype 'fp64'" in capsys.readouterr().err


def test_parse_shapes() -> None:
    assert parse_shapes("8, 16x32x64") == (Shape(8, 8, 8), Shape(16, 32, 64))
    with pytest.raises(ValueError, match="bad shape"):
        parse_shapes("8x8")
