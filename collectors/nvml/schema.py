"""The `gpu_samples` Arrow schema: one row per GPU per minute (models/raw/gpu_samples.sql).

The agent, the fleet simulator and the reader all use `GPU_SAMPLES_SCHEMA`;
`rows_to_table` turns per-minute dicts into a table of it, filling `sample_id`.

Spool schema versions (the agent writes `SCHEMA_VERSION` into each file's Parquet
metadata under `SCHEMA_VERSION_KEY`; `SPOOL_COLUMNS` lists each version's columns):

- 1: the columns up to `status`.
- 2: adds `pod_namespace`, `pod_name`, `pod_uid`: the Kubernetes pod that held the GPU
  in the minute, from the kubelet's PodResources API (null off Kubernetes, when no pod
  held it, or when several pods shared it as MIG slices). A version-1 file still loads:
  its pod columns read as null.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa

STATUSES = ("ok", "lost", "not_supported")
SCHEMA_VERSION = 2
SCHEMA_VERSION_KEY = b"flopledger.gpu_samples.schema_version"

GPU_SAMPLES_SCHEMA = pa.schema(
    [
        pa.field("sample_id", pa.string(), nullable=False),
        pa.field("minute", pa.timestamp("us"), nullable=False),
        pa.field("node", pa.string(), nullable=False),
        pa.field("project_id", pa.string()),
        pa.field("resource_name", pa.string()),
        pa.field("gpu_uuid", pa.string()),
        pa.field("gpu_index", pa.int32(), nullable=False),
        pa.field("gpu_name", pa.string()),
        pa.field("util_gpu_pct", pa.float64()),
        pa.field("util_gpu_max_pct", pa.float64()),
        pa.field("util_mem_pct", pa.float64()),
        pa.field("mem_used_bytes", pa.int64()),
        pa.field("mem_used_max_bytes", pa.int64()),
        pa.field("mem_total_bytes", pa.int64()),
        pa.field("power_w", pa.float64()),
        pa.field("power_max_w", pa.float64()),
        pa.field("energy_j", pa.float64()),
        pa.field("sm_clock_mhz", pa.float64()),
        pa.field("mem_clock_mhz", pa.float64()),
        pa.field("clock_event_reasons", pa.int64()),
        pa.field("tensor_active_pct", pa.float64()),
        pa.field("sm_active_pct", pa.float64()),
        pa.field("sm_occupancy_pct", pa.float64()),
        pa.field("dram_bw_util_pct", pa.float64()),
        pa.field("xid_errors", pa.int64()),
        pa.field("ecc_errors", pa.int64()),
        pa.field("compute_processes_max", pa.int64()),
        pa.field("samples", pa.int64(), nullable=False),
        pa.field("status", pa.string(), nullable=False),
        pa.field("pod_namespace", pa.string()),
        pa.field("pod_name", pa.string()),
        pa.field("pod_uid", pa.string()),
    ],
    metadata={SCHEMA_VERSION_KEY: str(SCHEMA_VERSION).encode()},
)

COLUMNS = tuple(GPU_SAMPLES_SCHEMA.names)

POD_COLUMNS = ("pod_namespace", "pod_name", "pod_uid")
SPOOL_COLUMNS: dict[int, tuple[str, ...]] = {
    1: tuple(c for c in COLUMNS if c not in POD_COLUMNS),
    2: COLUMNS,
}

PCT_COLUMNS = tuple(c for c in COLUMNS if c.endswith("_pct"))
NON_NEGATIVE_COLUMNS = tuple(
    c
    for c in COLUMNS
    if c.endswith(("_bytes", "_w", "_j", "_mhz"))
    or c in ("xid_errors", "ecc_errors", "compute_processes_max", "samples", "gpu_index")
)


def sample_id(node: str, gpu_key: str, minute: datetime) -> str:
    """Stable primary key: the same GPU and minute on the same node is the same row.

    `gpu_key` is the GPU UUID (or `index:N` for a GPU lost before its UUID was read).
    """
    key = f"{node}\x1f{gpu_key}\x1f{minute.replace(tzinfo=None).isoformat()}"
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def gpu_key(gpu_uuid: str | None, gpu_index: int) -> str:
    """What identifies a GPU in `sample_id`: its UUID, else its index."""
    return gpu_uuid if gpu_uuid else f"index:{gpu_index}"


def _with_id(row: Mapping[str, Any]) -> dict[str, Any]:
    out = {name: row.get(name) for name in COLUMNS}
    if out["sample_id"] is None:
        out["sample_id"] = sample_id(
            str(row["node"]), gpu_key(row.get("gpu_uuid"), int(row["gpu_index"])), row["minute"]
        )
    return out


def rows_to_table(rows: Iterable[Mapping[str, Any]]) -> pa.Table:
    """Per-minute dicts (keys = column names; missing = null) as a `gpu_samples` table.

    `minute` is a naive datetime meaning UTC (an aware one is converted to UTC).
    `sample_id` is filled in when absent.
    """
    fixed = []
    for row in rows:
        minute = row["minute"]
        if isinstance(minute, datetime) and minute.tzinfo is not None:
            row = {**row, "minute": minute.astimezone(UTC).replace(tzinfo=None)}
        fixed.append(_with_id(row))
    return pa.Table.from_pylist(fixed, schema=GPU_SAMPLES_SCHEMA)
