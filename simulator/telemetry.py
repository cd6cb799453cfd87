"""Per-minute telemetry, written at the granularity of its real output (never 1 Hz readings):
NVML spool files (one row per GPU per minute, a file per node and day) and Cloud Monitoring
pages for TPU slices (one series per chip and metric). Busy while a run holds the device,
idle otherwise, and idle in a run's held-but-idle stretches. Arrays are numpy, one node-day at a time.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa

from flopledger.collectors.cloud_monitoring.pages import write_pages
from flopledger.collectors.nvml.schema import GPU_SAMPLES_SCHEMA
from flopledger.collectors.nvml.spool import write_spool_file
from flopledger.simulator.clock import DAY_US, MINUTE_US, to_naive
from flopledger.simulator.fleet import TpuSlice, Vm
from flopledger.simulator.schedule import Run

TPU_METRIC = "tpu.googleapis.com/accelerator/"


class Held(NamedTuple):
    first: int
    devices: int
    start_us: int
    end_us: int
    idle_us: list[tuple[int, int]]


def index_placements(runs: list[Run], period_end_us: int) -> dict[str, list[Held]]:
    """Placements by resource name (a running run holds to the end of the period)."""
    out: dict[str, list[Held]] = defaultdict(list)
    for run in runs:
        for p in run.placements:
            end = period_end_us if p.end_us is None else p.end_us
            out[p.resource_name].append(
                # A MIG placement marks the GPUs its slices are on (ceil of the share held).
                Held(
                    p.first_device,
                    -(-p.accelerators * p.share_numerator // p.share_denominator),
                    p.start_us,
                    end,
                    run.idle_us,
                )
            )
    return out


def _minutes(created_us: int, deleted_us: int, day_us: int) -> np.ndarray:
    """Start (µs) of each minute of the day the resource existed in (in part or whole)."""
    start, end = max(created_us, day_us), min(deleted_us, day_us + DAY_US)
    if end <= start:
        return np.empty(0, dtype=np.int64)
    first = start - start % MINUTE_US
    return np.arange(first, end, MINUTE_US, dtype=np.int64)


def _mask(minutes: np.ndarray, start_us: int, end_us: int) -> np.ndarray:
    """Minutes whose start falls in [start, end)."""
    return (minutes >= start_us - start_us % MINUTE_US) & (minutes < end_us)


def held_busy(
    devices: int, minutes: np.ndarray, placements: list[Held]
) -> tuple[np.ndarray, np.ndarray]:
    """(held, busy) boolean arrays, devices x minutes."""
    held = np.zeros((devices, minutes.size), dtype=bool)
    busy = np.zeros_like(held)
    for p in placements:
        mask = _mask(minutes, p.start_us, p.end_us)
        if not mask.any():
            continue
        rows = slice(p.first, p.first + p.devices)
        held[rows] |= mask
        active = mask.copy()
        for a, b in p.idle_us:
            active &= ~_mask(minutes, a, b)
        busy[rows] |= active
    return held, busy


def _level(
    rng: np.random.Generator,
    held: np.ndarray,
    busy: np.ndarray,
    busy_range: tuple[float, float],
    held_range: tuple[float, float],
    idle: float = 0.0,
) -> np.ndarray:
    value = np.where(
        busy,
        rng.uniform(*busy_range, busy.shape),
        np.where(held, rng.uniform(*held_range, busy.shape), idle),
    )
    return np.round(value, 1)


def _gpu_uuid(vm: Vm, index: int) -> str:
    h = hashlib.sha256(f"{vm.name}/{index}".encode()).hexdigest()
    return f"GPU-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def _sample_ids(node: str, uuids: list[str], minutes: np.ndarray) -> list[str]:
    texts = [f"{to_naive(int(m)).isoformat()}" for m in minutes]
    return [
        hashlib.sha256(f"{node}\x1f{u}\x1f{t}".encode()).hexdigest()[:32]
        for u in uuids
        for t in texts
    ]


def gpu_day_table(
    vm: Vm, day_us: int, placements: list[Held], rng: np.random.Generator
) -> pa.Table | None:
    """One node-day of `gpu_samples` rows (GPU-major, minute-minor), or None if the VM did not exist."""
    minutes = _minutes(vm.created_us, vm.deleted_us, day_us)
    if minutes.size == 0:
        return None
    gpus, m = vm.machine.gpus, vm.machine
    held, busy = held_busy(gpus, minutes, placements)
    power = _level(rng, held, busy, (550, 690), (110, 160), 72.0)
    uuids = [_gpu_uuid(vm, i) for i in range(gpus)]
    n = gpus * minutes.size
    mem = m.accelerator.memory_bytes
    total = np.full(n, mem, dtype=np.int64)
    used = (
        (np.where(held, rng.uniform(0.6, 0.95, held.shape), 0.006) * mem).astype(np.int64).ravel()
    )
    cols: dict[str, Any] = {
        "sample_id": _sample_ids(vm.name, uuids, minutes),
        "minute": pa.array(np.tile(minutes, gpus), type=pa.timestamp("us")),
        "node": [vm.name] * n,
        "project_id": [vm.project.project_id] * n,
        "resource_name": [vm.name] * n,
        "gpu_uuid": np.repeat(uuids, minutes.size).tolist(),
        "gpu_index": np.repeat(np.arange(gpus, dtype=np.int32), minutes.size),
        "gpu_name": [m.accelerator.device_name] * n,
        "util_gpu_pct": _level(rng, held, busy, (82, 99), (0, 3)).ravel(),
        "util_gpu_max_pct": _level(rng, held, busy, (97, 100), (2, 9)).ravel(),
        "util_mem_pct": _level(rng, held, busy, (40, 70), (0, 1)).ravel(),
        "mem_used_bytes": used,
        "mem_used_max_bytes": used,
        "mem_total_bytes": total,
        "power_w": power.ravel(),
        "power_max_w": np.round(power * 1.08, 1).ravel(),
        "energy_j": np.round(power * 60, 1).ravel(),
        "sm_clock_mhz": np.where(busy, 1980.0, 345.0).ravel(),
        "mem_clock_mhz": np.full(n, 2619.0),
        "clock_event_reasons": np.where(busy, 0, 1).astype(np.int64).ravel(),
        "tensor_active_pct": _level(rng, held, busy, (30, 60), (0, 0.5)).ravel(),
        "sm_active_pct": _level(rng, held, busy, (70, 95), (0, 2)).ravel(),
        "sm_occupancy_pct": _level(rng, held, busy, (30, 50), (0, 1)).ravel(),
        "dram_bw_util_pct": _level(rng, held, busy, (40, 70), (0, 1)).ravel(),
        "xid_errors": np.zeros(n, dtype=np.int64),
        "ecc_errors": np.zeros(n, dtype=np.int64),
        "compute_processes_max": held.astype(np.int64).ravel(),
        "samples": np.full(n, 60, dtype=np.int64),
        "status": ["ok"] * n,
        # The simulated fleet is VMs, not Kubernetes: no pod holds a GPU.
        "pod_namespace": [None] * n,
        "pod_name": [None] * n,
        "pod_uid": [None] * n,
    }
    return pa.table(
        {
            name: pa.array(cols[name], type=GPU_SAMPLES_SCHEMA.field(name).type)
            for name in GPU_SAMPLES_SCHEMA.names
        },
        schema=GPU_SAMPLES_SCHEMA,
    )


def write_gpu_day(spool_dir: Path, vm: Vm, day_us: int, placements: list[Held], seed: int) -> int:
    """Write the VM's spool file for the day; returns the rows written."""
    rng = np.random.default_rng([seed, vm.index, day_us // DAY_US])
    table = gpu_day_table(vm, day_us, placements, rng)
    if table is None:
        return 0
    write_spool_file(spool_dir / vm.name, table)
    return table.num_rows


def _tpu_series(
    tpu: TpuSlice, minutes: np.ndarray, held: np.ndarray, busy: np.ndarray, rng: np.random.Generator
) -> list[dict[str, Any]]:
    stamps = [to_naive(int(m)) for m in minutes]
    hbm = tpu.tpu.accelerator.memory_bytes
    metrics = {
        "duty_cycle": ("DOUBLE", _level(rng, held, busy, (85, 99), (0, 4))),
        "tensorcore_utilization": ("DOUBLE", _level(rng, held, busy, (40, 72), (0, 1))),
        "memory_bandwidth_utilization": ("DOUBLE", _level(rng, held, busy, (30, 60), (0, 1))),
        "memory_used": (
            "INT64",
            (np.where(held, rng.uniform(0.5, 0.9, held.shape), 0.0) * hbm).astype(np.int64),
        ),
        "memory_total": ("INT64", np.full(held.shape, hbm, dtype=np.int64)),
    }
    series = []
    for chip in range(tpu.tpu.chips_per_slice):
        worker, local = divmod(chip, tpu.tpu.chips_per_worker)
        resource = {
            "project_id": tpu.project.project_id,
            "zone": tpu.zone,
            "node_id": tpu.name,
            "worker_id": str(worker),
        }
        for metric, (value_type, values) in metrics.items():
            series.append(
                {
                    "metric_type": TPU_METRIC + metric,
                    "metric_labels": {"accelerator_id": str(local)},
                    "resource_type": "tpu_worker",
                    "resource_labels": resource,
                    "value_type": value_type,
                    "points": list(zip(stamps, values[chip].tolist(), strict=True)),
                }
            )
    return series


def write_tpu_day(
    pages_dir: Path, tpu: TpuSlice, day_us: int, placements: list[Held], seed: int
) -> int:
    """Write the slice's Monitoring pages for the day; returns the points written."""
    minutes = _minutes(tpu.created_us, tpu.deleted_us, day_us)
    if minutes.size == 0:
        return 0
    rng = np.random.default_rng([seed, 10_000 + tpu.index, day_us // DAY_US])
    held, busy = held_busy(tpu.tpu.chips_per_slice, minutes, placements)
    series = _tpu_series(tpu, minutes, held, busy, rng)
    write_pages(pages_dir / f"{to_naive(day_us):%Y-%m-%d}", series, page_size=40, prefix=tpu.name)
    return len(series) * minutes.size
