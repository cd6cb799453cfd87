"""Saved ListTimeSeriesResponse pages: the shared examples, write_pages round trip,
inventory mapping, and quarantine of what cannot be read."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from flopledger.collectors.cloud_monitoring import TPU_SAMPLES_SCHEMA, read_saved_pages, write_pages
from flopledger.collectors.cloud_monitoring.inventory import InventoryError, load_inventory
from flopledger.models import model

DATA = Path(__file__).parents[2] / "fixtures" / "cloud_monitoring_timeseries"
TPU_EXAMPLE = DATA / "example_timeSeries.list_tpu_duty_cycle.json"
GKE_EXAMPLE = DATA / "example_timeSeries.list_gke_node_accelerator_duty_cycle.json"
GCE = "tpu.googleapis.com/GceTpuWorker"
DUTY = "tpu.googleapis.com/accelerator/duty_cycle"
HBM_TOTAL = "tpu.googleapis.com/accelerator/memory_total"
WORKER = "8301234567890123456"
COLUMNS = ["minute", "project_id", "zone", "node_id", "resource_name", "worker_id",
           "accelerator_id", "monitored_resource_type", "duty_cycle_pct",
           "hbm_total_bytes"]  # fmt: skip
NODE_W = {"project_id": "my-project", "zone": "us-west4-a", "node_id": "node-w", "worker_id": "0"}


def _at(hour: int, minute: int) -> datetime:
    return datetime(2026, 5, 1, hour, minute)


def _frame(rows: list[tuple[object, ...]]) -> pl.DataFrame:
    """Expected rows in COLUMNS order; every other metric column is null."""
    schema = pl.from_arrow(TPU_SAMPLES_SCHEMA.empty_table()).drop("sample_id")
    frame = pl.DataFrame(rows, schema=COLUMNS, orient="row")
    others = [pl.lit(None).alias(c) for c in schema.columns if c not in COLUMNS]
    return frame.with_columns(others).select(schema.columns).cast(dict(schema.schema))


def _rows(table: object) -> pl.DataFrame:
    frame = pl.from_arrow(table)  # type: ignore[arg-type]
    assert isinstance(frame, pl.DataFrame)
    return frame.drop("sample_id")


def test_shared_tpu_example_without_inventory() -> None:
    table, quarantined, notes = read_saved_pages([TPU_EXAMPLE])
    # A point ending 10:02 covers minute 10:01, one ending 10:01 covers 10:00. The
    # GceTpuWorker series has no inventory: project number kept, node/resource null.
    expected = _frame([
        (_at(10, 0), "123456789012", "us-east5-b", None, None, WORKER, "0", GCE, 91.25, None),
        (_at(10, 1), "123456789012", "us-east5-b", None, None, WORKER, "0", GCE, 87.5, None),
        (_at(10, 1), "my-project", "us-central2-b", "my-tpu-v4-32", "my-tpu-v4-32", "2", "1",
         "tpu_worker", 0.0, None),
    ])  # fmt: skip
    assert table.schema == TPU_SAMPLES_SCHEMA
    assert_frame_equal(_rows(table), expected)
    assert quarantined == []
    assert notes == [
        f"{GCE} worker {WORKER} in us-east5-b (project 123456789012) has no inventory to map it: no billed node"
    ]


def test_gce_tpu_worker_mapped_through_a_csv_inventory(tmp_path: Path) -> None:
    inventory = tmp_path / "inventory.csv"
    inventory.write_text(
        "node,project_id,resource_container,zone,accelerator_type,chips_per_worker,worker_ids\n"
        f"tpu-v5p-east,my-project,123456789012,us-east5-b,v5p-8,4,{WORKER};8301234567890123457\n"
    )
    table, quarantined, notes = read_saved_pages([TPU_EXAMPLE], inventory=inventory)
    # at 10:01 both rows are my-project; resource "my-tpu-v4-32" sorts before "tpu-v5p-east".
    expected = _frame([
        (_at(10, 0), "my-project", "us-east5-b", "tpu-v5p-east", "tpu-v5p-east", WORKER, "0", GCE, 91.25, None),
        (_at(10, 1), "my-project", "us-central2-b", "my-tpu-v4-32", "my-tpu-v4-32", "2", "1",
         "tpu_worker", 0.0, None),
        (_at(10, 1), "my-project", "us-east5-b", "tpu-v5p-east", "tpu-v5p-east", WORKER, "0", GCE, 87.5, None),
    ])  # fmt: skip
    assert_frame_equal(_rows(table), expected)
    assert (quarantined, notes) == ([], [])


def test_shared_gke_example_gpu_series_are_reported_not_loaded() -> None:
    table, quarantined, notes = read_saved_pages([GKE_EXAMPLE])
    assert table.num_rows == 0 and table.schema == TPU_SAMPLES_SCHEMA
    assert quarantined == []
    # Both series are on the same node: one note.
    assert notes == [
        "k8s_node gke-train-cluster-a3-pool-1a2b3c4d-xyz1: nvidia accelerator, not a TPU; not collected"
    ]


def test_gke_tpu_node_series_is_loaded(tmp_path: Path) -> None:
    page = json.loads(GKE_EXAMPLE.read_text())
    one = page["timeSeries"][0]
    one["metric"]["labels"] = {
        "make": "cloud-tpu",
        "model": "tpu-v6e-slice",
        "accelerator_id": "4711-2",
    }
    (tmp_path / "p.json").write_text(json.dumps({"timeSeries": [one]}))
    table, _, notes = read_saved_pages([tmp_path])
    node = "gke-train-cluster-a3-pool-1a2b3c4d-xyz1"
    # int64Value "97" ending 10:02 -> minute 10:01, 97.0; "95" ending 10:01 -> minute 10:00.
    expected = _frame([
        (_at(10, 0), "my-project", "us-central1-a", node, node, None, "4711-2", "k8s_node", 95.0, None),
        (_at(10, 1), "my-project", "us-central1-a", node, node, None, "4711-2", "k8s_node", 97.0, None),
    ])  # fmt: skip
    assert_frame_equal(_rows(table), expected)
    assert notes == []


def _simulated_series() -> list[dict[str, object]]:
    gce = {"resource_container": "4321", "location": "us-west4-a", "worker_id": "77"}
    total = 16 * 1024**3  # 17179869184 bytes
    return [
        {"metric_type": DUTY, "resource_type": "tpu_worker", "resource_labels": NODE_W,
         "metric_labels": {"accelerator_id": "0"},
         "points": [(_at(10, 0), 12.5), (_at(10, 1), None), (_at(10, 2), 100.0)]},
        {"metric_type": DUTY, "resource_type": "tpu_worker", "resource_labels": NODE_W,
         "metric_labels": {"accelerator_id": "1"}, "points": [(_at(10, 0), 0.0)]},
        {"metric_type": HBM_TOTAL, "resource_type": "tpu_worker", "resource_labels": NODE_W,
         "metric_labels": {"accelerator_id": "0"},
         "points": [(_at(10, 0), total), (_at(10, 2), total)]},
        {"metric_type": DUTY, "resource_type": GCE, "resource_labels": gce,
         "metric_labels": {"accelerator_id": "3"}, "points": [(_at(10, 1), 5.0)]},
    ]  # fmt: skip


def test_write_pages_writes_the_api_json_shape(tmp_path: Path) -> None:
    paths = write_pages(tmp_path, _simulated_series(), page_size=2, unit="%")
    assert [p.name for p in paths] == ["page-00001.json", "page-00002.json"]
    first, second = (json.loads(p.read_text()) for p in paths)
    assert first["nextPageToken"] == "page-00002" and "nextPageToken" not in second
    duty = first["timeSeries"][0]
    assert duty["metricKind"] == "GAUGE" and duty["valueType"] == "DOUBLE"
    # newest first; minute 10:02 is written as the aligned point ending 10:03; None left out.
    assert duty["points"] == [
        {"interval": {"startTime": "2026-05-01T10:03:00Z", "endTime": "2026-05-01T10:03:00Z"},
         "value": {"doubleValue": 100.0}},
        {"interval": {"startTime": "2026-05-01T10:01:00Z", "endTime": "2026-05-01T10:01:00Z"},
         "value": {"doubleValue": 12.5}},
    ]  # fmt: skip
    hbm = second["timeSeries"][0]
    assert hbm["valueType"] == "INT64"
    assert hbm["points"][0]["value"] == {"int64Value": "17179869184"}  # int64 as a JSON string
    assert first["unit"] == "%"


def test_write_pages_round_trip(tmp_path: Path) -> None:
    write_pages(tmp_path / "pages", _simulated_series(), page_size=1)
    table, quarantined, notes = read_saved_pages([tmp_path / "pages"])
    total = 17179869184
    expected = _frame([
        (_at(10, 0), "my-project", "us-west4-a", "node-w", "node-w", "0", "0", "tpu_worker", 12.5, total),
        (_at(10, 0), "my-project", "us-west4-a", "node-w", "node-w", "0", "1", "tpu_worker", 0.0, None),
        (_at(10, 1), "4321", "us-west4-a", None, None, "77", "3", GCE, 5.0, None),
        (_at(10, 2), "my-project", "us-west4-a", "node-w", "node-w", "0", "0", "tpu_worker", 100.0, total),
    ])  # fmt: skip
    assert_frame_equal(_rows(table), expected)
    assert quarantined == []
    assert notes == [
        f"{GCE} worker 77 in us-west4-a (project 4321) has no inventory to map it: no billed node"
    ]
    again, _, _ = read_saved_pages([tmp_path / "pages"])
    assert again.column("sample_id").to_pylist() == table.column("sample_id").to_pylist()


def test_malformed_pages_are_quarantined_and_good_rows_kept(tmp_path: Path) -> None:
    (tmp_path / "a_bad.json").write_text("{not json")
    (tmp_path / "b_wrong.json").write_text('{"timeSeries": "oops"}')
    good_point = {"interval": {"endTime": "2026-05-01T10:01:00.250Z"}, "value": {"doubleValue": 60}}
    bad_time = {"interval": {"endTime": "yesterday"}, "value": {"doubleValue": 1}}
    bad_value = {"interval": {"endTime": "2026-05-01T10:01:00Z"}, "value": {"stringValue": "x"}}
    no_node = {k: v for k, v in NODE_W.items() if k != "node_id"}
    page = {
        "timeSeries": [
            {"metric": {"type": DUTY, "labels": {"accelerator_id": "0"}},
             "resource": {"type": "tpu_worker", "labels": no_node}, "points": [good_point]},
            {"metric": {"type": DUTY, "labels": {"accelerator_id": "0"}},
             "resource": {"type": "tpu_worker", "labels": NODE_W},
             "points": [bad_time, good_point, bad_value]},
        ],
        "executionErrors": [{"code": 14, "message": "backend unavailable"}],
    }  # fmt: skip
    (tmp_path / "c_mixed.json").write_text(json.dumps(page))
    table, quarantined, notes = read_saved_pages([tmp_path])
    # 10:01:00.25 lies in minute 10:01.
    expected = _frame(
        [
            (
                _at(10, 1),
                "my-project",
                "us-west4-a",
                "node-w",
                "node-w",
                "0",
                "0",
                "tpu_worker",
                60.0,
                None,
            )
        ]
    )
    assert_frame_equal(_rows(table), expected)
    got = [(Path(q.file).name, q.line, q.reason.split(":")[0]) for q in quarantined]
    assert got == [
        ("a_bad.json", None, "page is not JSON"),
        ("b_wrong.json", None, "not a ListTimeSeriesResponse (no timeSeries list)"),
        ("c_mixed.json", 1, "resource label(s) missing"),
        ("c_mixed.json", 2, "point"),
        ("c_mixed.json", 2, "point"),
    ]
    assert "not RFC 3339" in quarantined[3].reason and "stringValue" in quarantined[4].reason
    assert all(q.source == "cloud_monitoring" for q in quarantined)
    assert json.loads(quarantined[3].raw) == bad_time
    assert len(notes) == 1 and "execution error" in notes[0]


def test_inventory_worker_count_and_range(tmp_path: Path) -> None:
    path = tmp_path / "inv.yaml"
    path.write_text(
        "nodes:\n"
        "  - {node: a, project_id: p, zone: z, worker_count: 2}\n"
        "  - {node: b, project_id: p, zone: z, worker_id_range: [10, 12]}\n"
    )
    inv = load_inventory(path)
    # worker_count 2 -> workers "0", "1"; range [10, 12] -> "10", "11", "12".
    assert [n.worker_ids for n in inv.nodes] == [("0", "1"), ("10", "11", "12")]
    node = inv.lookup("p", "z", "11")
    assert node is not None and node.node == "b"
    assert inv.lookup("p", "z", "2") is None


def test_inventory_refuses_a_worker_claimed_twice(tmp_path: Path) -> None:
    path = tmp_path / "inv.yaml"
    path.write_text(
        "nodes:\n"
        "  - {node: a, project_id: p, zone: z, worker_ids: ['1']}\n"
        "  - {node: b, project_id: p, zone: z, worker_ids: ['1']}\n"
    )
    with pytest.raises(InventoryError, match="claimed by both"):
        load_inventory(path)


def test_ddl_matches_the_arrow_schema() -> None:
    ddl = model("tpu_samples")
    assert set(ddl.column_comments) == set(TPU_SAMPLES_SCHEMA.names)  # every column commented
    con = duckdb.connect()
    con.execute(ddl.sql)
    assert con.sql("SELECT * FROM tpu_samples").to_arrow_table().schema == TPU_SAMPLES_SCHEMA
