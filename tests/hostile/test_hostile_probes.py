"""Hostile probe result lines: loaded, a duplicate, or quarantined with the reason."""

from __future__ import annotations

import pytest

from flopledger.collectors.probe_results import ProbeRead, read_probe_results
from tests.hostile.hostile import DUPLICATE, LOADED, Case, check, write_lines


def result(result_id: str, **changes):
    row = {
        "result_id": result_id,
        "measured_at": "2026-10-02T10:00:00Z",
        "node": "a3-node-1",
        "device_index": 0,
        "device_kind": "NVIDIA H100 80GB HBM3",
        "accelerator_type": "H100-80GB",
        "backend": "gpu",
        "dtype": "bf16",
        "m": 8192,
        "n": 8192,
        "k": 8192,
        "iterations": 50,
        "achieved_tflops": 700.5,
        "verified": True,
        "probe_version": "1",
    }
    row.update(changes)
    return row


CASES = [
    Case("a plain result", result("r1"), LOADED),
    Case("m = 1e30 (past BIGINT)", result("r2", m=1e30), "does not fit its BIGINT column"),
    Case(
        "achieved_tflops NaN (JSON's NaN literal)",
        result("r3", achieved_tflops=float("nan")),
        "not a finite number",
    ),
    Case("achieved_tflops a string", result("r3b", achieved_tflops="NaN"), "must be a number"),
    Case("achieved_tflops -5", result("r4", achieved_tflops=-5), "must not be negative"),
    Case(
        "measured in year 9999",
        result("r5", measured_at="9999-01-01T00:00:00Z"),
        "plausible window",
    ),
    Case("measured in 1970", result("r6", measured_at=0), "plausible window"),
    Case("m zero", result("r7", m=0), "must be positive"),
    Case(
        "unverified but a speed", result("r8", verified=False), "unverified result reports a speed"
    ),
    Case("not an object", "[]", "not a JSON object"),
    Case("invalid UTF-8 in node", b'{"result_id": "r9", "node": "n\xc3"}', "invalid UTF-8"),
    Case("the same result read again", result("r1"), DUPLICATE),
    Case(
        "the same id, other values", result("r1", achieved_tflops=1.0), "seen before with different"
    ),
    Case(
        "an offset that takes it past year 9999 in UTC (was an OverflowError)",
        result("r10", measured_at="9999-12-31T23:00:00-05:00"),
        "between years 1 and 9999",
    ),
]


@pytest.fixture(scope="module")
def read(tmp_path_factory):
    path = write_lines(tmp_path_factory.mktemp("probes") / "p.jsonl", CASES)
    stats = ProbeRead()
    table, quarantined = read_probe_results([path], stats=stats)
    return table, quarantined, stats


@pytest.mark.parametrize("number", range(len(CASES)), ids=[c.name for c in CASES])
def test_each_probe_case(read, number):
    table, quarantined, stats = read
    loaded = {1} if "r1" in table["result_id"].to_pylist() else set()
    reasons = {q.line: q.reason for q in quarantined}
    check(CASES[number], loaded, reasons, number + 1, {12} if stats.duplicates == 1 else set())


def test_probe_lines_are_each_counted(read):
    table, quarantined, stats = read
    # 14 lines = 1 loaded (r1) + 12 quarantined + 1 duplicate (r1 again, identical).
    assert stats.rows_read == 14 == table.num_rows + len(quarantined) + stats.duplicates
    assert table.num_rows == 1
