"""Realistic probe results for the fleet simulator, in exactly the probe CLI's JSONL form.

One full bf16 sweep per node per day (the CLI's `--full` accelerator shapes on device 0, as
`flopledger probe --full --node NAME` would run from a daily cron), at a node-specific time of
night. A healthy node's ceiling is 75-85% of spec bf16 (about what the MAMF finder measures:
794 of 989 TFLOP/s on an H100), small shapes reach less of it. One node's ceiling drops by a
fifth from the middle day on (`degraded_node`): what `accelerator_efficiency` must flag.

No JAX here: rows are built as `ProbeResult`s and serialised by the CLI's own writer.
"""

from __future__ import annotations

import json
import random
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any

from flopledger.accelerators import find_accelerator
from flopledger.probes import PROBE_VERSION
from flopledger.probes.results import ProbeResult, result_id, write_jsonl
from flopledger.probes.shapes import Shape, default_shapes
from flopledger.probes.specs import accelerator_type_of, peak_spec

JAX_VERSION = "0.10.2"
DTYPE = "bf16"
DROP_FRACTION = 0.2  # the degraded node's ceiling falls by this much
SWEEP_HOUR = 3  # sweeps start at 03:00 UTC plus up to an hour of per-node jitter


def degraded_node(
    nodes: list[tuple[str, str]], days: list[date], seed: int
) -> tuple[str, date] | None:
    """The node whose ceiling drops, and the first day it is low (None: too few nodes or days)."""
    if not nodes or len(days) < 2:
        return None
    name, _ = random.Random(f"{seed}:degraded").choice(sorted(nodes))
    return name, sorted(days)[len(days) // 2]


def _shape_factor(shape: Shape) -> float:
    """Share of the ceiling a shape reaches: small products cannot fill the device."""
    size = (shape.m * shape.n * shape.k) ** (1 / 3)
    return 1.0 / (1.0 + (1024.0 / size) ** 2)


def _board_w(accelerator_type: str | None) -> float | None:
    """Full-load board power of a GPU (energy is metered through NVML only: TPUs have none)."""
    row = find_accelerator(accelerator_type)
    return row.board_power_w if row is not None and row.kind == "gpu" else None


def _result(
    node: str, device_kind: str, started: datetime, shape: Shape, ceiling: float, rng: random.Random
) -> ProbeResult:
    accelerator_type = accelerator_type_of(device_kind)
    spec = peak_spec(accelerator_type, DTYPE)
    achieved = ceiling * _shape_factor(shape) * rng.uniform(0.99, 1.0)
    call_s = shape.flops / (achieved * 1e12)
    iterations = max(5, int(1.0 / call_s))
    window_s = iterations * call_s / rng.uniform(0.97, 0.99)
    board_w = _board_w(accelerator_type)
    energy_j = None if board_w is None else board_w * rng.uniform(0.85, 0.97) * window_s
    return ProbeResult(
        result_id=result_id(node, started, 0, DTYPE, *shape),
        measured_at=started,
        node=node,
        device_index=0,
        device_kind=device_kind,
        accelerator_type=accelerator_type,
        backend="tpu" if device_kind.startswith("TPU") else "gpu",
        dtype=DTYPE,
        m=shape.m,
        n=shape.n,
        k=shape.k,
        iterations=iterations,
        achieved_tflops=achieved,
        median_tflops=achieved * rng.uniform(0.96, 0.99),
        spread_pct=rng.uniform(1.0, 5.0),
        peak_tflops_spec=None if spec is None else spec.peak_tflops,
        peak_source=None if spec is None else spec.source,
        efficiency=None if spec is None else achieved / spec.peak_tflops,
        window_s=window_s,
        energy_j=energy_j,
        tflops_per_w=None if energy_j is None else shape.flops * iterations / energy_j / 1e12,
        verified=True,
        verify_error_ratio=rng.uniform(0.01, 0.3),
        failure=None,
        jax_version=JAX_VERSION,
        probe_version=PROBE_VERSION,
    )


def _node_sweeps(
    node: str, accelerator_type: str, days: list[date], seed: int, drop_from: date | None
) -> list[ProbeResult]:
    row = find_accelerator(accelerator_type)
    device_kind = row.device_name if row is not None else None  # what JAX calls it
    spec = peak_spec(accelerator_type_of(device_kind), DTYPE)
    if device_kind is None or spec is None:
        raise ValueError(f"no simulated probe for accelerator type {accelerator_type!r}")
    rng = random.Random(f"{seed}:{node}")
    healthy = spec.peak_tflops * rng.uniform(0.76, 0.84)
    start_minute = rng.randrange(60)
    results = []
    for day in sorted(days):
        ceiling = healthy * (1 - DROP_FRACTION if drop_from and day >= drop_from else 1.0)
        at = datetime.combine(day, time(SWEEP_HOUR)) + timedelta(minutes=start_minute)
        for shape in default_shapes("full", "gpu"):
            result = _result(node, device_kind, at, shape, ceiling, rng)
            results.append(result)
            # The next shape starts after this one's compile, warm-up, timed window and verification.
            at += timedelta(seconds=round(2.0 + (result.window_s or 0.0), 3))
    return results


def simulated_probe_results(
    nodes: list[tuple[str, str]], days: list[date], seed: int
) -> list[ProbeResult]:
    """One full bf16 sweep per (node, canonical accelerator type) per day, as ProbeResults."""
    drop = degraded_node(nodes, days, seed)
    results: list[ProbeResult] = []
    for node, accelerator_type in nodes:
        drop_from = drop[1] if drop and drop[0] == node else None
        results.extend(_node_sweeps(node, accelerator_type, days, seed, drop_from))
    return results


def simulated_probe_rows(
    nodes: list[tuple[str, str]], days: list[date], seed: int
) -> list[dict[str, Any]]:
    """The same as JSONL-ready dicts: each is exactly one line the probe CLI writes, parsed."""
    return [json.loads(r.to_json()) for r in simulated_probe_results(nodes, days, seed)]


def _from_row(row: dict[str, Any]) -> ProbeResult:
    measured_at = datetime.fromisoformat(str(row["measured_at"]).removesuffix("Z"))
    return ProbeResult(**{**row, "measured_at": measured_at})


def write_probe_jsonl(path: Path, rows: list[dict[str, Any]]) -> int:
    """Write rows as the probe CLI does (its writer, one line each); returns the line count."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        return write_jsonl((_from_row(r) for r in rows), out)
