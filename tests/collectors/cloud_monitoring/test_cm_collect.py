"""The real MetricServiceClient against an in-process gRPC server on 127.0.0.1."""

from __future__ import annotations

import hashlib
from datetime import datetime
from pathlib import Path

import grpc
import polars as pl
import pytest
from cm_fakes import Scenario, monitoring_server, series
from polars.testing import assert_frame_equal

from flopledger.collectors.cloud_monitoring import TPU_SAMPLES_SCHEMA
from flopledger.collectors.cloud_monitoring.collect import collect_tpu_samples
from flopledger.collectors.cloud_monitoring.query import CloudMonitoringError, RetryPolicy

DUTY = "tpu.googleapis.com/accelerator/duty_cycle"
TENSORCORE = "tpu.googleapis.com/accelerator/tensorcore_utilization"
HBM_USED = "tpu.googleapis.com/accelerator/memory_used"
GCE = "tpu.googleapis.com/GceTpuWorker"
NODE_A = {
    "project_id": "my-project",
    "zone": "us-central1-a",
    "node_id": "node-a",
    "worker_id": "0",
}
FAST_RETRY = RetryPolicy(initial_s=0.05, maximum_s=0.2, total_s=10.0)
START, END = datetime(2026, 5, 1, 10, 0), datetime(2026, 5, 1, 10, 3)

INVENTORY_YAML = """\
nodes:
  - node: tpu-v5e-b
    project_id: my-project
    resource_container: "1234"
    zone: us-east5-b
    accelerator_type: v5litepod-8
    chips_per_worker: 4
    worker_ids: ["8301"]
"""


def _gce(worker: str) -> dict[str, str]:
    return {"resource_container": "1234", "location": "us-east5-b", "worker_id": worker}


def _scenario() -> Scenario:
    """duty_cycle over 3 pages; memory_used UNAVAILABLE once; tensorcore RESOURCE_EXHAUSTED once."""
    duty_pages = [
        {"timeSeries": [series(DUTY, "tpu_worker", NODE_A, "0",
                               [("2026-05-01T10:03:00Z", 50.0), ("2026-05-01T10:02:00Z", 40.0)])]},
        {"timeSeries": [series(DUTY, "tpu_worker", NODE_A, "1", [("2026-05-01T10:01:00Z", 25.0)])]},
        {"timeSeries": [
            series(DUTY, GCE, _gce("8301"), "0", [("2026-05-01T10:01:00Z", 75.0)]),
            series(DUTY, GCE, _gce("9999"), "0", [("2026-05-01T10:01:00Z", 10.0)]),
        ]},
    ]  # fmt: skip
    return Scenario(
        pages={
            DUTY: duty_pages,
            # ALIGN_MEAN turns INT64 memory_used into DOUBLE: 1073741824.4 rounds to 1073741824.
            HBM_USED: [{"timeSeries": [series(HBM_USED, "tpu_worker", NODE_A, "0",
                                              [("2026-05-01T10:03:00Z", 1073741824.4)])]}],
            TENSORCORE: [{"timeSeries": [series(TENSORCORE, "tpu_worker", NODE_A, "0",
                                                [("2026-05-01T10:03:00Z", 33.5)])]}],
        },
        fail_first={HBM_USED: grpc.StatusCode.UNAVAILABLE,
                    TENSORCORE: grpc.StatusCode.RESOURCE_EXHAUSTED},
    )  # fmt: skip


def _expected() -> pl.DataFrame:
    """By hand: a point ending at 10:0N:00 covers minute 10:0(N-1); sorted by minute, project,
    resource_name, worker, accelerator (nulls last). The unmapped worker keeps its project
    number 1234 as project_id and null node/resource_name."""
    m = [datetime(2026, 5, 1, 10, n) for n in range(3)]
    rows = [
        (m[0], "1234", "us-east5-b", None, None, "9999", "0", GCE, 10.0, None, None),
        (m[0], "my-project", "us-central1-a", "node-a", "node-a", "0", "1", "tpu_worker", 25.0, None, None),
        (m[0], "my-project", "us-east5-b", "tpu-v5e-b", "tpu-v5e-b", "8301", "0", GCE, 75.0, None, None),
        (m[1], "my-project", "us-central1-a", "node-a", "node-a", "0", "0", "tpu_worker", 40.0, None, None),
        (m[2], "my-project", "us-central1-a", "node-a", "node-a", "0", "0", "tpu_worker", 50.0, 33.5, 1073741824),
    ]  # fmt: skip
    names = ["minute", "project_id", "zone", "node_id", "resource_name", "worker_id",
             "accelerator_id", "monitored_resource_type", "duty_cycle_pct",
             "tensorcore_util_pct", "hbm_used_bytes"]  # fmt: skip
    frame = pl.DataFrame(rows, schema=names, orient="row")
    schema = pl.from_arrow(TPU_SAMPLES_SCHEMA.empty_table()).drop("sample_id")
    frame = frame.with_columns(
        pl.lit(None).alias("hbm_bw_util_pct"), pl.lit(None).alias("hbm_total_bytes")
    )
    return frame.select(schema.columns).cast(dict(schema.schema))


def test_collects_three_pages_with_retries_and_inventory(tmp_path: Path) -> None:
    scenario = _scenario()
    inventory = tmp_path / "inventory.yaml"
    inventory.write_text(INVENTORY_YAML)
    with monitoring_server(scenario) as endpoint:
        table, quarantined, notes = collect_tpu_samples(
            "my-project", START, END, endpoint=endpoint, inventory=inventory,
            filter='resource.labels.zone = starts_with("us-")', page_size=2, retry=FAST_RETRY,
        )  # fmt: skip
    assert table.schema == TPU_SAMPLES_SCHEMA
    got = pl.from_arrow(table)
    assert isinstance(got, pl.DataFrame)
    assert_frame_equal(got.drop("sample_id"), _expected())
    assert quarantined == []
    assert notes == [
        f"{GCE} worker 9999 in us-east5-b (project 1234) is not in the inventory: no billed node"
    ]
    # sample_id = sha256 of the chip key joined by \x1f (first 24 hex) + "-" + minute.
    key = "\x1f".join(["my-project", "us-central1-a", "node-a", "node-a", "0", "0", "tpu_worker"])
    assert got["sample_id"][4] == hashlib.sha256(key.encode()).hexdigest()[:24] + "-20260501T1002"
    assert got["sample_id"].n_unique() == 5

    duty_calls = scenario.calls(DUTY)
    assert [c.page_token for c in duty_calls] == ["", "page-2", "page-3"]  # three pages
    assert len(scenario.calls(HBM_USED)) == 2  # UNAVAILABLE, then retried
    assert len(scenario.calls(TENSORCORE)) == 2  # RESOURCE_EXHAUSTED, then retried
    assert len(scenario.requests) == 10 + 2 + 2  # 10 metric types; 2 more pages; 2 retries
    first = duty_calls[0]
    assert first.name == "projects/my-project"
    assert first.filter == f'metric.type = "{DUTY}" AND (resource.labels.zone = starts_with("us-"))'
    assert first.aggregation.alignment_period.total_seconds() == 60
    assert first.aggregation.per_series_aligner.name == "ALIGN_MEAN"
    assert first.page_size == 2
    assert first.interval.start_time.isoformat() == "2026-05-01T10:00:00+00:00"
    assert first.interval.end_time.isoformat() == "2026-05-01T10:03:00+00:00"


def test_deadline_exceeded_is_a_clear_error_not_retried() -> None:
    scenario = Scenario(sleep_s={DUTY: 5.0})
    with monitoring_server(scenario) as endpoint, pytest.raises(CloudMonitoringError) as err:
        collect_tpu_samples(
            "my-project", START, END, endpoint=endpoint, deadline_s=0.3,
            retry=FAST_RETRY, metric_types=[DUTY],
        )  # fmt: skip
    assert "DEADLINE_EXCEEDED" in str(err.value)
    assert "deadline_s=0.3" in str(err.value)
    assert len(scenario.calls(DUTY)) == 1


def test_retries_give_up_with_a_clear_error() -> None:
    scenario = Scenario(fail_first={DUTY: grpc.StatusCode.PERMISSION_DENIED})
    with monitoring_server(scenario) as endpoint, pytest.raises(CloudMonitoringError) as err:
        collect_tpu_samples("my-project", START, END, endpoint=endpoint, metric_types=[DUTY])
    assert "PERMISSION_DENIED" in str(err.value) or "scripted" in str(err.value)
    assert len(scenario.calls(DUTY)) == 1  # not a retryable code


def test_empty_window_is_refused() -> None:
    with pytest.raises(ValueError, match="empty window"):
        collect_tpu_samples("p", END, START, endpoint="127.0.0.1:1")
