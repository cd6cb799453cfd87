"""Probe JSONL -> probe_results rows: round trip through the probe's writer, bad lines quarantined."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime
from pathlib import Path

import duckdb
import polars as pl
import pyarrow as pa
from polars.testing import assert_frame_equal

from flopledger.collectors.probe_results import PROBE_RESULTS_SCHEMA, read_probe_results
from flopledger.models import model
from flopledger.probes.results import ProbeResult, append_jsonl, result_id

FIELD_NAMES = tuple(f.name for f in dataclasses.fields(ProbeResult))  # a result's columns

WHEN = datetime(2025, 3, 1, 12, 0, 0, 250000)


def _result(dtype: str, verified: bool) -> ProbeResult:
    return ProbeResult(
        result_id=result_id("gpu-node-7", WHEN, 0, dtype, 8192, 8192, 8192),
        measured_at=WHEN,
        node="gpu-node-7",
        device_index=0,
        device_kind="NVIDIA H100 80GB HBM3",
        accelerator_type="H100-80GB",
        backend="gpu",
        dtype=dtype,
        m=8192,
        n=8192,
        k=8192,
        iterations=400,
        achieved_tflops=791.5 if verified else None,
        median_tflops=780.0 if verified else None,
        spread_pct=3.5 if verified else None,
        peak_tflops_spec=989.4 if verified else None,
        peak_source="H100 datasheet" if verified else None,
        efficiency=0.8 if verified else None,
        window_s=0.56,
        energy_j=392.0 if verified else None,
        tflops_per_w=1.12 if verified else None,
        verified=verified,
        verify_error_ratio=0.02 if verified else 35.0,
        failure=None if verified else "sampled entries off by up to 35x the fp16 tolerance",
        jax_version="0.10.2",
        probe_version="1",
    )


def _write_file(tmp_path: Path) -> Path:
    path = tmp_path / "probe.jsonl"
    append_jsonl([_result("bf16", True), _result("fp16", False)], path)
    good = json.loads(path.read_text().splitlines()[0])
    with path.open("a") as fh:
        fh.write(json.dumps(good) + "\n")  # line 3: the same result again (overlap): one row
        fh.write("{not json\n")  # line 4
        fh.write(json.dumps({**good, "result_id": "x1", "m": "8192"}) + "\n")  # line 5: m as text
        fh.write(
            json.dumps({**good, "result_id": "x2", "verified": False}) + "\n"
        )  # line 6: speed unverified
        fh.write(
            json.dumps({k: v for k, v in good.items() if k != "node"}) + "\n"
        )  # line 7: no node
        fh.write("\n")  # blank: skipped
        fh.write(
            json.dumps({**good, "achieved_tflops": 1.0}) + "\n"
        )  # line 9: same id, other values
    return path


def test_round_trip_with_bad_lines_quarantined(tmp_path: Path) -> None:
    path = _write_file(tmp_path)
    table, bad = read_probe_results([path, tmp_path / "missing.jsonl"])
    assert table.schema == PROBE_RESULTS_SCHEMA
    expected = pl.DataFrame(
        {
            "measured_at": [WHEN, WHEN],
            "node": ["gpu-node-7", "gpu-node-7"],
            "dtype": ["bf16", "fp16"],
            "m": [8192, 8192],
            "achieved_tflops": [791.5, None],
            "efficiency": [0.8, None],
            "energy_j": [392.0, None],
            "verified": [True, False],
        },
        schema_overrides={"measured_at": pl.Datetime("us")},
    )
    assert_frame_equal(pl.from_arrow(table).select(expected.columns), expected)  # type: ignore[union-attr]
    assert [(q.line, q.reason) for q in bad] == [
        (4, "not valid JSON (Expecting property name enclosed in double quotes at column 2)"),
        (5, "m must be an integer, got '8192'"),
        (6, "unverified result reports a speed (achieved_tflops must be null)"),
        (7, "missing required field(s): node"),
        (9, "result_id seen before with different values"),
        (None, "file not found"),
    ]
    assert all(q.source == "probe_results" for q in bad)


def test_reader_columns_match_the_ddl_and_the_writer() -> None:
    ddl_columns = tuple(model("probe_results").column_comments)
    assert ddl_columns == tuple(PROBE_RESULTS_SCHEMA.names) == FIELD_NAMES


def test_rows_load_into_the_raw_table(tmp_path: Path) -> None:
    table, _ = read_probe_results([_write_file(tmp_path)])
    con = duckdb.connect()
    con.execute(model("probe_results").sql)
    con.register("incoming", table)
    con.execute("INSERT INTO probe_results SELECT * FROM incoming")
    rows = con.execute(
        "SELECT dtype, achieved_tflops, verified FROM probe_results ORDER BY dtype"
    ).fetchall()
    assert rows == [("bf16", 791.5, True), ("fp16", None, False)]
    assert isinstance(table, pa.Table)
