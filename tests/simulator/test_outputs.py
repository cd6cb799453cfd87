"""What the simulator writes: deterministic, in the real formats, readable with nothing quarantined."""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from flopledger.collectors.cloud_monitoring.pages import read_saved_pages
from flopledger.collectors.gcp_billing.read import read_billing_files
from flopledger.collectors.jobs.read import read_jobs_files
from flopledger.collectors.nvml.read import read_spool
from flopledger.simulator import SimulationResult, simulate
from tests.conftest import FIXTURES
from tests.simulator.conftest import TINY, files_of

SCHEMA_JSON = FIXTURES / "gcp_billing_export" / "gcp_billing_export_resource_v1.schema.json"
BQ_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})? UTC$")


def _digests(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_same_seed_same_bytes(tiny: SimulationResult, tmp_path: Path) -> None:
    again = simulate(tmp_path / "again", **TINY)
    assert _digests(again.out_dir) == _digests(tiny.out_dir)


def test_different_seed_different_bytes(tiny: SimulationResult, tmp_path: Path) -> None:
    other = simulate(tmp_path / "other", **{**TINY, "seed": 8, "days": 1}, telemetry=False)
    first = _digests(tiny.out_dir / "billing")
    assert {k: v for k, v in _digests(other.out_dir / "billing").items() if k in first} != {
        k: first[k] for k in _digests(other.out_dir / "billing") if k in first
    }


def _check_value(field: dict[str, Any], value: Any, path: str) -> None:
    if field["mode"] == "REPEATED":
        assert isinstance(value, list), path
        for item in value:
            _check_one(field, item, path)
    elif value is not None:
        _check_one(field, value, path)


def _check_one(field: dict[str, Any], value: Any, path: str) -> None:
    kind = field["type"]
    if kind == "RECORD":
        assert isinstance(value, dict), path
        names = {f["name"] for f in field["fields"]}
        assert set(value) <= names, f"{path}: unknown {set(value) - names}"
        for sub in field["fields"]:
            _check_value(sub, value.get(sub["name"]), f"{path}.{sub['name']}")
    elif kind == "STRING":
        assert isinstance(value, str), path
    elif kind == "FLOAT":
        assert isinstance(value, (int, float, Decimal)) and not isinstance(value, bool), path
    elif kind == "NUMERIC":
        Decimal(str(value))
    elif kind == "TIMESTAMP":
        assert BQ_TIMESTAMP.match(value), f"{path}: {value!r}"
    elif kind == "BOOLEAN":
        assert isinstance(value, bool), path
    else:
        pytest.fail(f"{path}: unexpected type {kind}")


def test_every_ndjson_row_validates_against_the_export_schema(tiny: SimulationResult) -> None:
    schema = json.loads(SCHEMA_JSON.read_text())
    top = {"name": "row", "type": "RECORD", "mode": "NULLABLE", "fields": schema}
    files = files_of(tiny, "billing/**/*.ndjson")
    assert files
    for path in files:
        for line in path.read_text().splitlines():
            row = json.loads(line, parse_float=Decimal)
            assert set(row) == {f["name"] for f in schema}  # every field, as a real row has
            _check_one(top, row, path.name)


def _arrow(field: dict[str, Any]) -> pa.DataType:
    scalars = {
        "STRING": pa.string(),
        "FLOAT": pa.float64(),
        "NUMERIC": pa.decimal128(38, 9),
        "TIMESTAMP": pa.timestamp("us", tz="UTC"),
        "BOOLEAN": pa.bool_(),
    }
    base = (
        pa.struct([pa.field(f["name"], _arrow(f)) for f in field["fields"]])
        if field["type"] == "RECORD"
        else scalars[field["type"]]
    )
    return pa.list_(base) if field["mode"] == "REPEATED" else base


def test_every_parquet_file_has_the_export_schema(tiny: SimulationResult) -> None:
    expected = pa.schema(
        [pa.field(f["name"], _arrow(f)) for f in json.loads(SCHEMA_JSON.read_text())]
    )
    files = files_of(tiny, "billing/**/*.parquet")
    assert files
    for path in files:
        assert pq.read_schema(path).remove_metadata().equals(expected), path


def _billing(tiny: SimulationResult) -> tuple[pa.Table, Any]:
    return read_billing_files(
        files_of(tiny, "billing/**/*.ndjson") + files_of(tiny, "billing/**/*.parquet")
    )


def test_billing_reads_back_with_nothing_quarantined_and_totals_equal_truth(
    tiny: SimulationResult,
) -> None:
    table, stats = _billing(tiny)
    assert stats.rows_quarantined == 0
    distinct: dict[str, Decimal] = {}
    billed: dict[str, Decimal] = {}
    for rid, cost, credits in zip(
        *(table.column(c).to_pylist() for c in ("row_id", "cost_usd", "credits_total_usd")),
        strict=True,
    ):
        distinct[rid], billed[rid] = cost + credits, cost
    truth = json.loads((tiny.out_dir / "truth" / "totals.json").read_text())
    assert table.num_rows > len(distinct) == truth["distinct_rows"]  # overlaps repeat rows
    assert sum(distinct.values(), Decimal(0)) == Decimal(truth["effective_usd"])
    assert sum(billed.values(), Decimal(0)) == Decimal(truth["billed_usd"])
    assert len(set(table.column("currency").to_pylist())) == 2


def test_overlaps_repeat_rows_exactly_in_the_same_format(tiny: SimulationResult) -> None:
    table, _ = _billing(tiny)
    formats: dict[str, set[str]] = defaultdict(set)
    for rid, source in zip(
        table.column("row_id").to_pylist(), table.column("source").to_pylist(), strict=True
    ):
        formats[rid].add(Path(source).suffix)
    assert all(len(f) == 1 for f in formats.values())  # no row in both formats
    overlaps = files_of(tiny, "billing/**/*-overlap.ndjson")
    assert overlaps
    for path in overlaps:
        account = re.sub(r"-\d{3}-overlap\.ndjson$", "", path.name)
        whole = set(path.with_name(f"{account}-000.ndjson").read_text().splitlines())
        assert set(path.read_text().splitlines()) <= whole


def test_bill_has_credits_late_rows_tax_and_run_labels(tiny: SimulationResult) -> None:
    table, _ = _billing(tiny)
    rows = table.to_pylist()
    credit_types = {c["type"] for r in rows for c in r["credits"]}
    assert {"COMMITTED_USAGE_DISCOUNT", "SUSTAINED_USAGE_DISCOUNT", "PROMOTION"} <= credit_types
    assert {"regular", "tax", "adjustment"} <= {r["cost_type"] for r in rows}
    assert any((r["export_time"] - r["usage_end"]).days >= 3 for r in rows)
    assert all(r["resource_name"] is None for r in rows if r["cost_type"] == "tax")
    run_labels = {v for r in rows for k, v in r["labels"] if k == "run_id"}
    assert "run-999999" in run_labels and len(run_labels) >= 2
    assert {"H100-80GB", "H200-141GB", "TPU-v5p", "TPU-v6e"} <= {
        r["accelerator_type"] for r in rows
    }


def test_jobs_read_back_with_every_kind_of_run(tiny: SimulationResult) -> None:
    read = read_jobs_files(files_of(tiny, "jobs/*.jsonl") + files_of(tiny, "jobs/*.json"))
    assert read.quarantined == []
    jobs = read.jobs.to_pylist()
    assert {j["workload_class"] for j in jobs} >= {
        "pretraining",
        "post_training",
        "rl_eval",
        "online_inference",
        "batch_inference",
    }
    assert {"succeeded", "failed", "running"} <= {j["status"] for j in jobs}
    assert all(j["ended_at"] is None for j in jobs if j["status"] == "running")
    assert all(j["submitted_at"] <= j["started_at"] for j in jobs)
    retried = [j for j in jobs if j["attempt"] == 2]
    assert retried and all(
        any(o["job_id"] == j["job_id"] and o["attempt"] == 1 for o in jobs) for j in retried
    )
    slurm = {j["run_id"] for j in jobs if j["scheduler"] == "slurm"}
    assert slurm and len(jobs) == len({j["run_id"] for j in jobs})
    placements = read.placements.to_pylist()
    per_run = defaultdict(list)
    for p in placements:
        per_run[p["run_id"]].append(p)
    assert any(len(ps) > 1 for ps in per_run.values())  # multi-host
    assert any(p["accelerators"] == 4 for p in placements)  # two runs share a VM


def test_telemetry_reads_back(tiny: SimulationResult) -> None:
    gpus, quarantined = read_spool([tiny.out_dir / "spool"])
    assert quarantined == [] and gpus.num_rows == tiny.gpu_rows
    assert 0 < sum(1 for u in gpus.column("util_gpu_pct").to_pylist() if u > 50) < gpus.num_rows
    tpus, refused, _ = read_saved_pages([tiny.out_dir / "monitoring"])
    assert refused == [] and tpus.num_rows * 5 == tiny.tpu_points


def test_config_names_only_what_was_written(tiny: SimulationResult, tmp_path: Path) -> None:
    config = yaml.safe_load(tiny.config_path.read_text())
    assert config["warehouse"]["path"] == "warehouse.duckdb"
    assert set(config["sources"]) == {
        "gcp_billing",
        "jobs",
        "nvml_spool",
        "cloud_monitoring",
        "probes",
        "managed_inference",
    }
    assert config["budgets"] == "budgets.yaml" and (tiny.out_dir / "budgets.yaml").is_file()
    gpu_only = simulate(tmp_path / "gpu", gpus=16, tpu_chips=0, days=1, seed=2)
    sources = yaml.safe_load(gpu_only.config_path.read_text())["sources"]
    assert "cloud_monitoring" not in sources and not (gpu_only.out_dir / "monitoring").exists()
