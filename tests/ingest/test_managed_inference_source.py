"""The managed inference source's loading rule: the window's days, plus every day a new or
rewritten file holds (late rows are never lost to the schedule's window), each rebuilt from
every file that holds it; files unchanged and holding no such day are not read; a rerun
changes nothing; a day the inputs no longer hold is left as it was."""

from __future__ import annotations

import json
import os
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from flopledger.ingest.managed_inference import ManagedInference
from flopledger.ingest.run import IngestRun
from flopledger.settings import load_config
from flopledger.warehouse import Warehouse
from flopledger.warehouse.duckdb import DuckDBWarehouse
from tests.conftest import write_config
from tests.models.test_managed_inference import _request

D1, D2, D3 = date(2026, 10, 1), date(2026, 10, 2), date(2026, 10, 3)


def _write(path: Path, *records: dict) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _loaded(w: Warehouse) -> list[tuple[str, str, Decimal]]:
    rows = w.query(
        "SELECT request_id, CAST(started_at AS DATE) AS d, spend FROM managed_requests ORDER BY 1"
    )
    return [(r["request_id"], str(r["d"]), r["spend"]) for r in rows.to_pylist()]


def _run(root: Path, w: Warehouse, window: list[date]) -> dict:
    config = load_config(root / "flopledger.yaml")
    run = IngestRun(config, w, now=datetime(2026, 10, 10), days=window)
    return ManagedInference().load(run)["managed_requests"]


def _warehouse(kind: str, tmp_path: Path, name: str, request: pytest.FixtureRequest) -> Warehouse:
    if kind == "duckdb":
        warehouse: Warehouse = DuckDBWarehouse(tmp_path / f"{name}.duckdb")
    else:  # the real client against bqemulator: the marks' queries in BigQuery's dialect
        from flopledger.warehouse.bigquery import BigQueryWarehouse
        from tests.bigquery_emulator import PROJECT

        emulator = request.getfixturevalue("bigquery_emulator")
        warehouse = BigQueryWarehouse(PROJECT, f"marks_{name}", endpoint=emulator.endpoint)
    warehouse.ensure_schema()
    return warehouse


@pytest.mark.parametrize("kind", ["duckdb", "bigquery"])
def test_changed_files_and_the_days_they_hold_are_read_nothing_else(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    write_config(
        tmp_path,
        "warehouse: {kind: duckdb, path: w.duckdb}\n"
        'sources:\n  managed_inference: {paths: ["gateway/*.ndjson"]}\n',
    )
    gateway = tmp_path / "gateway"
    gateway.mkdir()
    w = _warehouse(kind, tmp_path, "w", request)
    _write(gateway / "a.ndjson", _request("a", "together_ai", 10, 5, 0.1))  # 2026-10-01
    _write(gateway / "b.ndjson", {**_request("b", "together_ai", 10, 5, 0.1),
           "startTime": "2026-10-02T09:00:00Z", "endTime": "2026-10-02T09:00:01Z"})  # fmt: skip
    # A run for 2 October only, on a new warehouse: both files are new, so 1 October is taken too.
    first = _run(tmp_path, w, [D2])
    assert (first["files"], first["files_unchanged"]) == (2, 0)
    tenth = Decimal("0.100000000")
    assert _loaded(w) == [("a", "2026-10-01", tenth), ("b", "2026-10-02", tenth)]
    # Rerun for 3 October: nothing changed and no file holds the 3rd: no file is read.
    again = _run(tmp_path, w, [D3])
    assert (again["files"], again["files_unchanged"]) == (0, 2)
    # A late file for 1 October arrives: it is read, and a.ndjson (which holds the 1st) with it,
    # so that the 1st is rebuilt from every file holding it; b.ndjson is not read.
    _write(gateway / "c.ndjson", _request("c", "together_ai", 1, 1, 0.2, start="23:00:00", end="23:00:01"))  # fmt: skip
    late = _run(tmp_path, w, [D3])
    assert (late["files"], late["files_unchanged"]) == (2, 1)
    fifth = Decimal("0.200000000")
    assert _loaded(w) == [
        ("a", "2026-10-01", tenth),
        ("b", "2026-10-02", tenth),
        ("c", "2026-10-01", fifth),
    ]
    # a.ndjson is rewritten (a revised spend, same size and a later time): the 1st is rebuilt.
    revised = gateway / "a.ndjson"
    _write(revised, _request("a", "together_ai", 10, 5, 0.3))
    os.utime(revised, ns=(revised.stat().st_atime_ns, revised.stat().st_mtime_ns + 10**9))
    assert _run(tmp_path, w, [D3])["files"] == 2  # a.ndjson and c.ndjson
    assert _loaded(w)[0] == ("a", "2026-10-01", Decimal("0.300000000"))
    # 2 October's file is archived away: its day stays as it was, even inside the window.
    (gateway / "b.ndjson").unlink()
    assert _run(tmp_path, w, [D2])["files"] == 0
    assert [r[0] for r in _loaded(w)] == ["a", "b", "c"]
    # What a warehouse reading every file once holds, for the days the files still hold.
    whole = _warehouse(kind, tmp_path, "whole", request)
    _run(tmp_path, whole, [D1])
    assert _loaded(whole) == [r for r in _loaded(w) if r[0] != "b"]


def _on(day: date, rid: str) -> dict:
    """A request (10 prompt and 5 completion tokens, 0.1 USD) started on `day`."""
    return {**_request(rid, "together_ai", 10, 5, 0.1),
            "startTime": f"{day}T09:00:00Z", "endTime": f"{day}T09:00:01Z",
            "completionStartTime": f"{day}T09:00:00Z"}  # fmt: skip


def test_a_windowed_rerun_counts_the_other_days_outside_the_window(tmp_path: Path) -> None:
    """Issue 36: `flopledger run --from 2026-10-06 --to 2026-10-06` printed `managed_requests:
    840 row(s) read but neither loaded nor refused`. One gateway file holds a request on each
    of 5, 6 and 7 October and a line that is not JSON; a run for the 6th on a new warehouse
    takes every day the new file holds; the rerun reads the unchanged file again (it holds
    the 6th) and rebuilds the 6th alone: the 5th's and 7th's requests are outside the window."""
    from flopledger.cli.run_report import _source_lines

    write_config(
        tmp_path,
        "warehouse: {kind: duckdb, path: w.duckdb}\n"
        'sources:\n  managed_inference: {paths: ["gateway/*.ndjson"]}\n',
    )
    gateway = tmp_path / "gateway"
    gateway.mkdir()
    oct5, oct6, oct7 = date(2026, 10, 5), date(2026, 10, 6), date(2026, 10, 7)
    log = _write(gateway / "a.ndjson", _on(oct5, "r5"), _on(oct6, "r6"), _on(oct7, "r7"))
    log.write_text(log.read_text() + "{not json\n")
    w = DuckDBWarehouse(tmp_path / "w.duckdb")
    w.ensure_schema()
    first = _run(tmp_path, w, [oct6])
    # 4 lines read = 3 loaded (a new file: all its days) + 1 quarantined + 0 outside the window.
    counts = ("rows_read", "rows_loaded", "rows_quarantined", "rows_outside_window")
    assert tuple(first[k] for k in counts) == (4, 3, 1, 0)
    again = _run(tmp_path, w, [oct6])
    # 4 lines read = 1 loaded (the 6th's r6) + 1 quarantined + 2 outside (r5, r7).
    assert tuple(again[k] for k in counts) == (4, 1, 1, 2)
    assert [r[0] for r in _loaded(w)] == ["r5", "r6", "r7"]  # the 5th and 7th kept as loaded
    lines = _source_lines({"managed_requests": again})
    assert not [line for line in lines if "neither loaded nor refused" in line]
    assert lines[1].split()[-2:] == ["outside", "window"]
    assert lines[2].split() == ["managed_requests", "4", "1", "0", "1", "2"]
