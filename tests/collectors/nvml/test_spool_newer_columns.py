"""A newer agent's spool file loads (issue 36, item 2c): a file with a column this reader does
not know (`future_metric_pct`) beside every column it does was refused whole, its rows lost (a
node-day's 11,520). Now its rows load by the columns the reader knows, and the ignored columns
are said: `SpoolRead.notes` per file, and one `input warnings:` line of the run's report per
thing ignored, with how many files. A rename (an unknown column where a known one is missing)
is still refused whole, as is a newer version that lacks a known column."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from flopledger.cli.run_report import _input_warning_lines, _source_lines
from flopledger.collectors.nvml.read import SpoolRead, read_spool
from flopledger.collectors.nvml.schema import SCHEMA_VERSION_KEY, rows_to_table
from flopledger.collectors.nvml.spool import spool_file_name
from flopledger.ingest.nvml_spool import NvmlSpool
from flopledger.ingest.run import IngestRun
from flopledger.settings import load_config
from flopledger.warehouse.duckdb import DuckDBWarehouse
from tests.conftest import write_config

DAY = datetime(2026, 10, 1, 8, 0)


def _samples(node: str) -> pa.Table:
    """2 GPUs x 3 minutes of `node`: 6 rows, power 400 W."""
    return rows_to_table(
        {"minute": DAY + timedelta(minutes=m), "node": node, "gpu_uuid": f"GPU-{g}",
         "gpu_index": g, "util_gpu_pct": 50.0, "power_w": 400.0, "samples": 60, "status": "ok"}
        for g in range(2) for m in range(3)
    )  # fmt: skip


def _with_future(table: pa.Table) -> pa.Table:
    return table.append_column("future_metric_pct", pa.array([12.5] * table.num_rows))


def _version(table: pa.Table, version: bytes) -> pa.Table:
    return table.replace_schema_metadata({SCHEMA_VERSION_KEY: version})


def _write(folder: Path, node: str, table: pa.Table) -> Path:
    path = folder / spool_file_name(node, DAY, "aaaa")
    pq.write_table(table, path)
    return path


def test_an_added_column_is_ignored_and_said_the_rows_load(tmp_path: Path) -> None:
    extra = _write(tmp_path, "a", _with_future(_samples("a")))  # version 2 (ours) + a column
    newer = _write(tmp_path, "b", _version(_with_future(_samples("b")), b"3"))
    plain_newer = _write(tmp_path, "c", _version(_samples("c"), b"3"))  # v3, no new column
    stats = SpoolRead()
    table, refused = read_spool([extra, newer, plain_newer], stats=stats)
    assert refused == []
    # 3 files x 6 rows, every row loaded, by the columns the reader knows.
    assert table.num_rows == 18 == stats.rows_read
    assert "future_metric_pct" not in table.column_names
    assert sum(table["power_w"].to_pylist()) == 18 * 400.0
    assert stats.notes == {
        str(extra): "column(s) future_metric_pct ignored (not in spool schema version 2; the "
        "rows loaded without them)",
        str(newer): "spool schema version 3 is newer than this reader's (2): read by the "
        "columns it knows, column(s) future_metric_pct ignored",
        str(plain_newer): "spool schema version 3 is newer than this reader's (2): read by the "
        "columns it knows",
    }


def test_a_rename_or_a_newer_version_without_a_known_column_is_refused(tmp_path: Path) -> None:
    samples = _samples("a")
    renamed = samples.rename_columns(
        ["power_mw" if n == "power_w" else n for n in samples.column_names]
    )
    rename = _write(tmp_path, "a", _version(renamed, b"2"))  # (a rename drops the metadata)
    lacking = _write(tmp_path, "b", _version(_samples("b").drop_columns(["power_w"]), b"3"))
    stats = SpoolRead()
    table, refused = read_spool([rename, lacking], stats=stats)
    assert table.num_rows == 0 and stats.notes == {}
    assert [(q.file, q.line, q.reason) for q in refused] == [
        (str(rename), None, "unknown column(s) power_mw where column(s) power_w of spool "
         "schema version 2 are missing (a renamed schema): file refused whole"),
        (str(lacking), None, "spool schema version 3 is not one this reader knows (1 .. 2) "
         "and lacks column(s) power_w: upgrade flopledger to read it"),
    ]  # fmt: skip
    assert stats.rows_read == 2  # each file refused whole counts one row read


def test_the_run_report_says_what_was_ignored_once_for_all_files(tmp_path: Path) -> None:
    spool = tmp_path / "spool"
    spool.mkdir()
    first = _write(spool, "a", _with_future(_samples("a")))
    _write(spool, "b", _with_future(_samples("b")))
    _write(spool, "c", _samples("c"))  # the agent of today: nothing to say
    write_config(
        tmp_path,
        f"warehouse: {{kind: duckdb, path: {tmp_path / 'w.duckdb'}}}\n"
        f"sources:\n  nvml_spool: {{paths: ['{spool}']}}\n",
    )
    warehouse = DuckDBWarehouse(tmp_path / "w.duckdb")
    warehouse.ensure_schema()
    config = load_config(tmp_path / "flopledger.yaml")
    run = IngestRun(config, warehouse, now=datetime(2026, 10, 2), days=[date(2026, 10, 1)])
    meta = NvmlSpool().load(run)["gpu_samples"]
    # 3 files x 6 rows = 18 read = 18 loaded + 0 duplicate + 0 quarantined.
    counts = ("rows_read", "rows_loaded", "rows_duplicate", "rows_quarantined")
    assert tuple(meta[k] for k in counts) == (18, 18, 0, 0)
    assert _input_warning_lines({"gpu_samples": meta}) == [
        "",
        "input warnings:",
        "  sources.nvml_spool: 2 file(s): column(s) future_metric_pct ignored (not in spool "
        f"schema version 2; the rows loaded without them) (first: {first})",
    ]
    assert not [line for line in _source_lines({"gpu_samples": meta}) if "neither" in line]
