"""The `jobs` and `job_placements` raw tables as Arrow (in step with models/raw/*.sql)."""

import pyarrow as pa

WORKLOAD_CLASSES = (
    "pretraining",
    "post_training",
    "rl_eval",
    "online_inference",
    "batch_inference",
    "other",
)
STATUSES = ("succeeded", "failed", "cancelled", "running")

JOBS_SCHEMA = pa.schema(
    [
        ("run_id", pa.string()),
        ("job_id", pa.string()),
        ("attempt", pa.int32()),
        ("team", pa.string()),
        ("project_id", pa.string()),
        ("workload_class", pa.string()),
        ("experiment_id", pa.string()),
        ("model_name", pa.string()),
        ("model_params", pa.int64()),
        ("model_flops", pa.float64()),
        ("submitted_at", pa.timestamp("us")),
        ("started_at", pa.timestamp("us")),
        ("ended_at", pa.timestamp("us")),
        ("status", pa.string()),
        ("accelerator_type", pa.string()),
        ("accelerator_count", pa.int32()),
        ("tokens_in", pa.int64()),
        ("tokens_out", pa.int64()),
        ("labels", pa.map_(pa.string(), pa.string())),
        ("scheduler", pa.string()),
        ("submitted_day", pa.date32()),
        ("source", pa.string()),
        ("source_line", pa.int64()),
    ]
)

PLACEMENTS_SCHEMA = pa.schema(
    [
        ("placement_id", pa.string()),
        ("run_id", pa.string()),
        ("project_id", pa.string()),
        ("resource_name", pa.string()),
        ("accelerators", pa.int32()),
        ("share_numerator", pa.int32()),
        ("share_denominator", pa.int32()),
        ("start_at", pa.timestamp("us")),
        ("end_at", pa.timestamp("us")),
        ("submitted_day", pa.date32()),
    ]
)
