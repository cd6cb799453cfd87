"""The `tpu_samples` table: one row per TPU chip per minute (see models/raw/tpu_samples.sql)."""

from __future__ import annotations

import pyarrow as pa

TPU_SAMPLES_SCHEMA = pa.schema(
    [
        ("sample_id", pa.string()),
        ("minute", pa.timestamp("us")),
        ("project_id", pa.string()),
        ("zone", pa.string()),
        ("node_id", pa.string()),
        ("resource_name", pa.string()),
        ("worker_id", pa.string()),
        ("accelerator_id", pa.string()),
        ("monitored_resource_type", pa.string()),
        ("duty_cycle_pct", pa.float64()),
        ("tensorcore_util_pct", pa.float64()),
        ("hbm_bw_util_pct", pa.float64()),
        ("hbm_used_bytes", pa.int64()),
        ("hbm_total_bytes", pa.int64()),
    ]
)

# The last path segment of each collected metric type -> its tpu_samples column.
METRIC_COLUMNS: dict[str, str] = {
    "duty_cycle": "duty_cycle_pct",
    "tensorcore_utilization": "tensorcore_util_pct",
    "memory_bandwidth_utilization": "hbm_bw_util_pct",
    "memory_used": "hbm_used_bytes",
    "memory_total": "hbm_total_bytes",
}

# Metric prefixes: Cloud TPU (tpu_worker, GceTpuWorker) and GKE node level (k8s_node).
METRIC_PREFIXES: tuple[str, ...] = (
    "tpu.googleapis.com/accelerator/",
    "kubernetes.io/node/accelerator/",
)

METRIC_TYPES: tuple[str, ...] = tuple(p + s for p in METRIC_PREFIXES for s in METRIC_COLUMNS)

BYTES_COLUMNS: tuple[str, ...] = ("hbm_used_bytes", "hbm_total_bytes")

KEY_COLUMNS: tuple[str, ...] = (
    "project_id",
    "zone",
    "node_id",
    "resource_name",
    "worker_id",
    "accelerator_id",
    "monitored_resource_type",
)


def metric_column(metric_type: str) -> str | None:
    """The tpu_samples column a metric type fills, or None for a metric we do not collect."""
    for prefix in METRIC_PREFIXES:
        if metric_type.startswith(prefix):
            return METRIC_COLUMNS.get(metric_type[len(prefix) :])
    return None
