"""Spool files: atomic writes, rotation and cap; the reader's quarantine; the DDL contract."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from nvml_fakes import minute

from flopledger.collectors.nvml import spool as spool_module
from flopledger.collectors.nvml.read import read_spool
from flopledger.collectors.nvml.schema import GPU_SAMPLES_SCHEMA, rows_to_table
from flopledger.collectors.nvml.spool import (
    Spool,
    SpoolLimits,
    write_parquet_atomic,
    write_spool_file,
)
from flopledger.models import model


def row(n: int, gpu: int = 0, **values: Any) -> dict[str, Any]:
    base = {
        "minute": minute(n),
        "node": "n1",
        "gpu_uuid": f"GPU-{gpu}",
        "gpu_index": gpu,
        "util_gpu_pct": 50.0,
        "power_w": 400.0,
        "energy_j": 24_000.0,
        "samples": 60,
        "status": "ok",
    }
    return {**base, **values}


def test_write_spool_file_is_deterministic_and_reads_back(tmp_path: Path) -> None:
    rows = [row(0, 0), row(0, 1), row(1, 0)]
    first = write_spool_file(tmp_path, rows)
    second = write_spool_file(tmp_path, rows)
    assert first == second and first.name.startswith("gpu_samples_n1_20260714T080000Z_")
    table, quarantined = read_spool([tmp_path])
    assert quarantined == [] and table.num_rows == 3
    assert table.schema == GPU_SAMPLES_SCHEMA
    assert table.column("power_w").to_pylist() == [400.0, 400.0, 400.0]


def test_a_failed_write_leaves_nothing_under_a_final_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def torn(table: pa.Table, handle: Any, **kwargs: Any) -> None:
        handle.write(b"PAR1 half a file")
        raise OSError("disk full")

    monkeypatch.setattr(spool_module.pq, "write_table", torn)
    with pytest.raises(OSError, match="disk full"):
        write_parquet_atomic(pa.table({"x": [1]}), tmp_path / "final.parquet")
    assert list(tmp_path.iterdir()) == []


def test_reader_quarantines_torn_files_and_bad_rows(tmp_path: Path) -> None:
    good = write_spool_file(tmp_path / "a", [row(0), row(1)])
    torn = tmp_path / "a" / "gpu_samples_torn.parquet"
    torn.write_bytes(good.read_bytes()[: good.stat().st_size // 2])  # a kill mid-copy
    (tmp_path / "a" / ".gpu_samples_x.parquet.1234.tmp").write_bytes(b"ignored temp")
    bad = rows_to_table([row(2), row(3, util_gpu_pct=150.0), row(4, status="weird", energy_j=-1.0)])
    bad_path = tmp_path / "bad.parquet"
    pq.write_table(bad, bad_path)
    missing = tmp_path / "missing_column.parquet"
    pq.write_table(pa.table({"node": ["n1"]}), missing)

    table, quarantined = read_spool([tmp_path / "a", bad_path, missing, tmp_path / "nope"])

    assert sorted(table.column("minute").to_pylist()) == [minute(0), minute(1), minute(2)]
    by_file = {(Path(q.file).name, q.line): q.reason for q in quarantined}
    assert by_file[("gpu_samples_torn.parquet", None)].startswith("unreadable Parquet")
    assert by_file[("bad.parquet", 1)] == "util_gpu_pct outside 0-100"
    assert by_file[("bad.parquet", 2)] == (
        "status not one of ok/lost/not_supported; energy_j negative or not finite"
    )
    assert "missing required column" in by_file[("missing_column.parquet", None)]
    assert "no such file" in by_file[("nope", None)]
    assert len(quarantined) == 5
    assert '"util_gpu_pct": 150.0' in next(q.raw for q in quarantined if q.line == 1)


def test_same_sample_read_twice_is_one_row_with_most_samples(tmp_path: Path) -> None:
    write_spool_file(tmp_path, [row(0, samples=30)])  # an early version of an open window
    write_spool_file(tmp_path, [row(0, samples=60), row(1)])
    table, _ = read_spool([tmp_path, tmp_path])  # and the directory listed twice
    assert table.num_rows == 2
    assert table.column("samples").to_pylist() == [60, 60]


def test_rotation_closes_windows_and_the_cap_drops_oldest(tmp_path: Path) -> None:
    spool = Spool(tmp_path, "n1", SpoolLimits(rotate_s=120, max_total_bytes=10**9))
    for n in range(5):  # windows: minutes 0-1, 2-3, 4 (open)
        spool.append([row(n)])
    closed = spool.closed_files()
    assert len(closed) == 2 and spool.files_written == 5
    assert [pq.read_table(p).num_rows for p in closed] == [2, 2]

    old = closed[0]
    os.utime(old, (1_000, 1_000))  # ancient
    assert spool.enforce_cap(now_epoch_s=1_000 + 7 * 86400 + 1) == [old]

    tight = Spool(tmp_path, "n1", SpoolLimits(max_total_bytes=1))
    tight.append([row(9)])
    # every closed file goes (minutes 2-3, and minute 4 left open by the first spool);
    # the open file of this spool is never dropped
    expected = sorted(p for p in tmp_path.glob("*.parquet") if "T080900Z" not in p.name)
    assert len(expected) == 2
    assert tight.enforce_cap(now_epoch_s=0) == expected
    assert [p.name[:32] for p in tmp_path.glob("*.parquet")] == ["gpu_samples_n1_20260714T080900Z_"]


def test_spool_removes_temp_files_a_kill_left(tmp_path: Path) -> None:
    (tmp_path / ".gpu_samples_a.parquet.dead.tmp").write_bytes(b"half")
    Spool(tmp_path, "n1")
    assert list(tmp_path.iterdir()) == []


def test_ddl_matches_the_arrow_schema() -> None:
    ddl = model("gpu_samples")
    con = duckdb.connect()
    con.execute(ddl.sql)
    arrow_schema = con.sql("SELECT * FROM gpu_samples").to_arrow_table().schema
    assert arrow_schema.names == GPU_SAMPLES_SCHEMA.names
    assert arrow_schema.types == GPU_SAMPLES_SCHEMA.types
    assert set(ddl.column_comments) == set(GPU_SAMPLES_SCHEMA.names)
