"""Hostile Cloud Monitoring points: each series holds one point on its own chip (its
accelerator_id is the case number), so a loaded case is a row for that chip, and a refused
one is a quarantine entry whose line is the series number."""

from __future__ import annotations

import json
from datetime import date

import pytest

from flopledger.collectors.cloud_monitoring import read_saved_pages
from tests.hostile.hostile import LOADED, Case, check

NODE = {"project_id": "p", "zone": "us-west4-a", "node_id": "node-w", "worker_id": "0"}
DUTY = "tpu.googleapis.com/accelerator/duty_cycle"
HBM = "tpu.googleapis.com/accelerator/memory_used"
END = "2026-10-01T10:01:00Z"


def point(value, end=END):
    return {"interval": {"endTime": end}, "value": value}


CASES = [
    Case("duty cycle 50%", (DUTY, point({"doubleValue": 50})), LOADED),
    Case("duty cycle 500%", (DUTY, point({"doubleValue": 500})), "not a percentage in 0 .. 100"),
    Case("duty cycle -5%", (DUTY, point({"doubleValue": -5})), "not a percentage"),
    Case("duty cycle Infinity", (DUTY, point({"doubleValue": "Infinity"})), "not a percentage"),
    Case("duty cycle NaN is a missing reading", (DUTY, point({"doubleValue": "NaN"})), LOADED),
    Case("1e308 bytes", (HBM, point({"doubleValue": 1e308})), "fits BIGINT"),
    Case("int64 bytes past BIGINT", (HBM, point({"int64Value": str(2**64)})), "fits BIGINT"),
    Case("negative bytes", (HBM, point({"int64Value": "-1"})), "fits BIGINT"),
    Case(
        "a point in year 9999",
        (DUTY, point({"doubleValue": 1}, "9999-01-01T00:00:00Z")),
        "plausible window",
    ),
    Case(
        "a point in 1970",
        (DUTY, point({"doubleValue": 1}, "1970-01-01T00:00:00Z")),
        "plausible window",
    ),
    Case("a value that is text", (DUTY, point({"doubleValue": "abc"})), "is not a number"),
    Case("a point that is a list", (DUTY, [1, 2]), "no interval.endTime"),
]


def _series(number: int, case: Case) -> dict:
    metric, the_point = case.line
    return {
        "metric": {"type": metric, "labels": {"accelerator_id": str(number)}},
        "resource": {"type": "tpu_worker", "labels": NODE},
        "points": [the_point],
    }


@pytest.fixture(scope="module")
def read(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pages")
    page = {"timeSeries": [_series(i, c) for i, c in enumerate(CASES, 1)]}
    (folder / "a.json").write_text(json.dumps(page))
    bom_page = {"timeSeries": [_series(99, CASES[0])]}
    (folder / "b.json").write_bytes(b"\xef\xbb\xbf" + json.dumps(bom_page).encode())
    (folder / "c.json").write_bytes(b"[" * 100_000)
    return read_saved_pages([folder]), folder


@pytest.mark.parametrize("number", range(len(CASES)), ids=[c.name for c in CASES])
def test_each_tpu_case(read, number):
    (table, quarantined, _), folder = read
    loaded = {int(a) for a in table["accelerator_id"].to_pylist()}
    reasons = {q.line: q.reason for q in quarantined if q.file == str(folder / "a.json")}
    check(CASES[number], loaded, reasons, number + 1)


def test_a_bom_page_loads_and_a_bomb_page_is_refused(read):
    (table, quarantined, _), folder = read
    assert 99 in {int(a) for a in table["accelerator_id"].to_pylist()}
    assert [q.reason[:16] for q in quarantined if q.file == str(folder / "c.json")] == [
        "page is not JSON"
    ]


def test_a_tpu_day_no_bill_names_is_in_the_run_window(tmp_path):
    # Points on 10-07 (no bill, no run that day) and one in year 9999: the run's window takes
    # 10-07 (the old window left those points out without a word) and never 9999.
    from flopledger.ingest.registry import input_days
    from flopledger.settings import load_config
    from tests.conftest import write_config

    page = {"timeSeries": [_series(1, CASES[0]), _series(9, CASES[8])]}
    page["timeSeries"][0]["points"][0]["interval"]["endTime"] = "2026-10-07T10:01:00Z"
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "p.json").write_text(json.dumps(page))
    config = write_config(tmp_path, 'sources:\n  cloud_monitoring: {paths: ["pages/*.json"]}\n')
    assert input_days(load_config(config)) == {date(2026, 10, 7)}
