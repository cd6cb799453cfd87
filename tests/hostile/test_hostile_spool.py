"""Hostile NVML spool files: each case is one file of rows on node `c<n>`; loaded means that
node's rows reached the table, a refusal is a quarantine entry for that file.

A file of a renamed schema (an unknown column where a known one is missing) is refused whole
(loading it would make the renamed column 11,520 NULLs), and so is one naming a column twice; a
newer agent's file (a column added, or a newer version) carrying every known column loads by
those (tests/collectors/nvml/test_spool_newer_columns.py says what is said of the rest); a row
outside its file's two days is quarantined, not dropped; each row and each refusal is counted
once however many days' reads see its file."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from flopledger.collectors.nvml.read import SpoolRead, read_spool
from flopledger.collectors.nvml.schema import SCHEMA_VERSION_KEY, rows_to_table
from flopledger.collectors.nvml.spool import spool_file_name
from tests.hostile.hostile import LOADED, Case

DAY = datetime(2026, 10, 1, 8, 0)


def row(node: str, minute: datetime = DAY, **values):
    base = {"minute": minute, "node": node, "gpu_uuid": "GPU-0", "gpu_index": 0,
            "util_gpu_pct": 50.0, "power_w": 400.0, "energy_j": 24_000.0, "samples": 60,
            "status": "ok"}  # fmt: skip
    return {**base, **values}


def renamed(table: pa.Table) -> pa.Table:
    names = ["gpu_util_pct" if n == "util_gpu_pct" else n for n in table.column_names]
    return table.rename_columns(names)


def newer(table: pa.Table) -> pa.Table:
    return table.replace_schema_metadata({SCHEMA_VERSION_KEY: b"3"})


def extra_column(table: pa.Table) -> pa.Table:
    return table.append_column("gpu_temperature_c", pa.array([70.0] * table.num_rows))


def newer_without_power(table: pa.Table) -> pa.Table:
    return newer(table.drop_columns(["power_w"]))


def power_twice(table: pa.Table) -> pa.Table:
    return table.append_column("power_w", pa.array([1.0] * table.num_rows))


CASES = [
    Case("a plain file", ([row("c1")], None), LOADED),
    Case("a renamed column", ([row("c2")], renamed), "unknown column(s) gpu_util_pct"),
    Case("schema version 3 with every known column", ([row("c3")], newer), LOADED),
    Case("an unknown extra column", ([row("c4")], extra_column), LOADED),
    Case("util 150%", ([row("c5", util_gpu_pct=150.0)], None), "util_gpu_pct outside 0-100"),
    Case(
        "energy infinite",
        ([row("c6", energy_j=float("inf"))], None),
        "energy_j negative or not finite",
    ),
    Case("power NaN", ([row("c7", power_w=float("nan"))], None), "power_w negative or not finite"),
    Case(
        "a minute six days past its file's day",
        ([row("c8", DAY + timedelta(days=6))], None),
        "minute outside its file's days",
    ),
    Case("a minute in 2150", ([row("c9", datetime(2150, 1, 1))], None), "plausible window"),
    Case("a torn file", ([row("c10")], "torn"), "unreadable Parquet"),
    Case(
        "schema version 3 without power_w",
        ([row("c11")], newer_without_power),
        "spool schema version 3 is not one this reader knows (1 .. 2) and lacks column(s) power_w",
    ),
    Case("power_w twice", ([row("c12")], power_twice), "duplicate column name 'power_w'"),
]


def _write(folder: Path, number: int, case: Case) -> Path:
    rows, change = case.line
    table = rows_to_table(rows)
    named_for = DAY if case.name.startswith("a minute six") else rows[0]["minute"]
    path = folder / spool_file_name(f"c{number}", named_for, f"case{number:04d}")
    if change == "torn":
        pq.write_table(table, path)
        path.write_bytes(path.read_bytes()[:40])
        return path
    pq.write_table(change(table) if change else table, path)
    return path


@pytest.fixture(scope="module")
def read(tmp_path_factory):
    folder = tmp_path_factory.mktemp("spool")
    paths = [_write(folder, i, c) for i, c in enumerate(CASES, 1)]
    table, quarantined = read_spool(paths)
    return table, quarantined, paths


@pytest.mark.parametrize("number", range(len(CASES)), ids=[c.name for c in CASES])
def test_each_spool_case(read, number):
    table, quarantined, paths = read
    case, path = CASES[number], str(paths[number])
    nodes = set(table["node"].to_pylist())
    reasons = [q.reason for q in quarantined if q.file == path]
    if case.expect == LOADED:
        assert f"c{number + 1}" in nodes and not reasons
    else:
        assert f"c{number + 1}" not in nodes
        assert len(reasons) == 1 and case.expect in reasons[0], reasons


def test_each_row_and_refusal_is_counted_once_across_days(tmp_path):
    # One file named for 10-01 holds a good row on 10-01, a good row on 10-02 and a bad row
    # on 10-02, plus the same 10-01 row again in a second file (a re-shipped window).
    rows = [row("n"), row("n", DAY + timedelta(days=1)),
            row("n", DAY + timedelta(days=1, minutes=1), util_gpu_pct=-1.0)]  # fmt: skip
    first = tmp_path / spool_file_name("n", DAY, "aaaa")
    again = tmp_path / spool_file_name("n", DAY, "bbbb")
    pq.write_table(rows_to_table(rows), first)
    pq.write_table(rows_to_table(rows[:1]), again)
    totals = {"read": 0, "loaded": 0, "quarantined": 0, "duplicates": 0}
    lines: list[int | None] = []
    for day in (date(2026, 10, 1), date(2026, 10, 2)):
        stats = SpoolRead()
        table, quarantined = read_spool([first, again], day=day, stats=stats)
        totals["read"] += stats.rows_read
        totals["loaded"] += table.num_rows
        totals["quarantined"] += len(quarantined)
        lines += [q.line for q in quarantined]
        totals["duplicates"] += stats.duplicates
    # 4 rows in the files = 2 loaded (10-01, 10-02) + 1 quarantined + 1 duplicate; the bad
    # row is refused on its own day only (the old reader counted it on both).
    assert totals == {"read": 4, "loaded": 2, "quarantined": 1, "duplicates": 1}
    assert lines == [2]  # the bad row's number in its file (0-based), not in the day's slice


def test_a_window_read_with_carry_opens_each_file_once(tmp_path, monkeypatch):
    # The same two files as above plus a torn one named for 10-01, read for 10-01 and 10-02
    # with one SpoolCarry (as the asset reads a window): the same counts, each file opened
    # once (not once per day it may touch), the torn file refused once, on its own day.
    import flopledger.collectors.nvml.read as spool_read

    rows = [row("n"), row("n", DAY + timedelta(days=1)),
            row("n", DAY + timedelta(days=1, minutes=1), util_gpu_pct=-1.0)]  # fmt: skip
    first = tmp_path / spool_file_name("n", DAY, "aaaa")
    again = tmp_path / spool_file_name("n", DAY, "bbbb")
    torn = tmp_path / spool_file_name("n", DAY, "cccc")
    pq.write_table(rows_to_table(rows), first)
    pq.write_table(rows_to_table(rows[:1]), again)
    torn.write_bytes(b"PAR1 half a file")
    opened: list[str] = []
    real = spool_read.pq.ParquetFile

    def counted(source, *args, **kwargs):
        opened.append("file")
        return real(source, *args, **kwargs)

    monkeypatch.setattr(spool_read.pq, "ParquetFile", counted)
    carry = spool_read.SpoolCarry()
    totals = {"read": 0, "loaded": 0, "quarantined": 0, "duplicates": 0}
    loaded_minutes = []
    for day in (date(2026, 10, 1), date(2026, 10, 2)):
        stats = SpoolRead()
        table, quarantined = read_spool([first, again, torn], day=day, stats=stats, carry=carry)
        totals["read"] += stats.rows_read
        totals["loaded"] += table.num_rows
        totals["quarantined"] += len(quarantined)
        totals["duplicates"] += stats.duplicates
        loaded_minutes += table.column("minute").to_pylist()
    # 4 rows + 1 torn file (one row read) = 2 loaded + 2 quarantined + 1 duplicate.
    assert totals == {"read": 5, "loaded": 2, "quarantined": 2, "duplicates": 1}
    assert loaded_minutes == [DAY, DAY + timedelta(days=1)]
    assert len(opened) == 3  # three files, each opened once for both days
    # A day read again (out of order) reads its files again: same rows as the first time.
    table, quarantined = read_spool([first, again, torn], day=date(2026, 10, 1), carry=carry)
    assert table.column("minute").to_pylist() == [DAY] and len(quarantined) == 1
