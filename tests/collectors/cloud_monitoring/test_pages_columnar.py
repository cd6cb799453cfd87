"""Saved pages read in columns (collectors/cloud_monitoring/columnar.py, issue 15).

A plain page is read by Arrow into columns and gives the rows worked out here by hand; a page
the per-object reader reads differently from Arrow (a null, an escape, a string where a
number belongs, a value its checks refuse) is handed to that reader whole, so the rows,
refusals and notes are those it always gave. test_pages_columnar_fuzz.py compares the two
readers on mutated pages.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pyarrow as pa
import pytest

from flopledger.collectors.cloud_monitoring.pages import PagesByDay, add_page_file
from flopledger.collectors.cloud_monitoring.parse import SampleBuilder
from tests.collectors.cloud_monitoring.columnar_page import read_page

DATA = Path(__file__).parents[2] / "fixtures" / "cloud_monitoring_timeseries"
PREFIX = "tpu.googleapis.com/accelerator/"
NODE = {"project_id": "p", "zone": "us-east5-b", "node_id": "tpu-a", "worker_id": "0"}


def _series(metric: str, points: list[tuple[str, dict]], **labels: str) -> dict:
    return {
        "metric": {"type": PREFIX + metric, "labels": {"accelerator_id": "1", **labels}},
        "resource": {"type": "tpu_worker", "labels": NODE},
        "metricKind": "GAUGE",
        "points": [{"interval": {"endTime": e, "startTime": e}, "value": v} for e, v in points],
    }


PLAIN = {
    "timeSeries": [
        # Unaligned: 10:00:30 and 10:01:00 both end inside minute 10:00 (mean 50.25);
        # 10:00:00+02:00 is 08:00 UTC, so it covers 07:59.
        _series(
            "duty_cycle",
            [
                ("2026-05-01T10:00:30Z", {"doubleValue": 40.5}),
                ("2026-05-01T10:01:00.000000000Z", {"doubleValue": 60}),
                ("2026-05-01T10:00:00+02:00", {"doubleValue": 12.125}),
            ],
        ),
        _series("memory_used", [("2026-05-01T10:01:00Z", {"int64Value": "17179869184"})]),
        _series("network/sent_bytes_count", [("2026-05-01T10:01:00Z", {"int64Value": "x"})]),
    ],
    "nextPageToken": "",
    "unit": "%",
}


def _write(tmp_path: Path, page: object, name: str = "page.json") -> Path:
    path = tmp_path / name
    path.write_text(page if isinstance(page, str) else json.dumps(page))
    return path


def _both(path: Path) -> tuple[tuple, tuple]:
    """What a builder finishes with, read in columns (where it can be) and as objects."""
    out = []
    for columns in (True, False):
        builder = SampleBuilder()
        add_page_file(builder, path, columns=columns)
        out.append(builder.finish())
    return out[0], out[1]


def test_a_plain_page_is_read_in_columns_with_the_rows_worked_by_hand(tmp_path: Path) -> None:
    path = _write(tmp_path, PLAIN)
    builder = SampleBuilder()
    assert read_page(builder, path.read_bytes())
    table, quarantined, notes = builder.finish()
    rows = [
        (r["minute"], r["duty_cycle_pct"], r["hbm_used_bytes"], r["resource_name"])
        for r in table.to_pylist()
    ]
    assert rows == [
        (datetime(2026, 5, 1, 7, 59), 12.125, None, "tpu-a"),
        (datetime(2026, 5, 1, 10, 0), (40.5 + 60) / 2, 17179869184, "tpu-a"),
    ]
    assert quarantined == []
    # The uncollected metric's points are never read (its "x" is not refused), only noted.
    assert notes == [f"metric type '{PREFIX}network/sent_bytes_count' is not collected"]
    columns, objects = _both(path)
    assert columns[0].equals(objects[0]) and columns[1:] == objects[1:]


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.json")))
def test_the_apis_own_examples_take_the_columnar_path(name: str) -> None:
    """Pages as Google documents them are plain: the fast path is the common one."""
    assert read_page(SampleBuilder(), (DATA / name).read_bytes())
    columns, objects = _both(DATA / name)
    assert columns[0].num_rows or columns[2]  # rows, or the GKE GPU series' note
    assert columns[0].equals(objects[0]) and columns[1:] == objects[1:]


def _mutated(old: str, new: str) -> str:
    text = json.dumps(PLAIN)
    assert old in text
    return text.replace(old, new, 1)


HANDED_OVER = {
    # json.loads reads a label null as "None"; Arrow cannot tell null from absent
    "null label": _mutated('"zone": "us-east5-b"', '"zone": null'),
    "NaN as text": _mutated('"doubleValue": 40.5', '"doubleValue": "NaN"'),
    "an escape": _mutated('"node_id": "tpu-a"', '"node_id": "tpu-\\u0061"'),
    "non-ASCII": _mutated('"node_id": "tpu-a"', '"node_id": "tpu-\u00e9"'),
    "execution errors": _mutated('"unit": "%"', '"executionErrors": [{"code": 4}]'),
    "two objects": json.dumps(PLAIN) + json.dumps(PLAIN),
    "a duplicate key": _mutated('"doubleValue": 40.5', '"doubleValue": 1, "doubleValue": 40.5'),
    "int64 as a number": _mutated('{"int64Value": "17179869184"}', '{"int64Value": 17179869184}'),
    "int64 with a sign": _mutated('"17179869184"', '"+17179869184"'),
    "a percentage over the limit": _mutated('"doubleValue": 40.5', '"doubleValue": 100.75'),
    "a negative byte count": _mutated('"17179869184"', '"-1"'),
    "an unreadable time": _mutated('"2026-05-01T10:00:30Z"', '"yesterday"'),
    "a time before 2000": _mutated('"2026-05-01T10:00:30Z"', '"1999-05-01T10:00:30Z"'),
    "no value": _mutated('"value": {"doubleValue": 40.5}', '"v": 1'),
    "no accelerator_id": _mutated('"accelerator_id": "1"', '"chip": "1"'),
    "a label number": _mutated('"worker_id": "0"', '"worker_id": 0'),
    "not JSON": json.dumps(PLAIN)[:-2],
    "an array": json.dumps([PLAIN]),
}


@pytest.mark.parametrize("case", sorted(HANDED_OVER))
def test_what_arrow_would_read_otherwise_goes_to_the_per_object_reader(
    tmp_path: Path, case: str
) -> None:
    path = _write(tmp_path, HANDED_OVER[case])
    builder = SampleBuilder()
    assert not read_page(builder, path.read_bytes())
    assert builder.finish()[0].num_rows == 0 and builder.notes == []  # nothing half-added
    columns, objects = _both(path)
    assert columns[0].equals(objects[0])
    assert columns[1:] == objects[1:]


def test_a_refused_point_keeps_its_reason_and_its_siblings(tmp_path: Path) -> None:
    """The per-object reader refuses one point and loads the rest: so does the whole."""
    path = _write(tmp_path, HANDED_OVER["a percentage over the limit"])
    (table, quarantined, _), _ = _both(path)
    assert [q.reason for q in quarantined] == [
        "point: duty_cycle_pct: 100.75 is not a percentage in 0 .. 100"
    ]
    assert table.column("duty_cycle_pct").to_pylist() == [12.125, 60.0]


def test_pages_by_day_reads_ahead_on_threads_in_file_order(tmp_path: Path) -> None:
    """Several files, some handed over, read a day at a time: the same as one by one."""
    paths = [
        _write(tmp_path, PLAIN, "a.json"),
        _write(tmp_path, HANDED_OVER["NaN as text"], "b.json"),
        _write(tmp_path, HANDED_OVER["not JSON"], "c.json"),
        _write(tmp_path, PLAIN, "d.json"),
        _write(tmp_path, HANDED_OVER["a percentage over the limit"], "e.json"),
        _write(tmp_path, PLAIN, "f.json"),
    ]
    results = []
    for columns in (True, False):
        pages = PagesByDay(paths, columns=columns)
        day = pages.day(datetime(2026, 5, 1).date())
        results.append((day[0], day[1], *pages.rest()))
    fast, slow = results
    assert fast[0].equals(slow[0]) and fast[0].num_rows == 2
    assert fast[1] == slow[1] and len(fast[1]) == 2  # not JSON, and the point over 100
    assert pa.concat_tables([fast[2]]).num_rows == 0 and fast[3:] == slow[3:]


def test_several_readings_of_a_chip_minute_are_averaged_in_read_order(tmp_path: Path) -> None:
    """Unaligned pages may hold several points of one chip-minute: their mean is summed in the
    order read, so the same points give the same bits every time (polars' parallel mean
    summed in another order now and then)."""
    ends = ["2026-05-01T10:00:20Z", "2026-05-01T10:00:40Z", "2026-05-01T10:01:00Z"]
    page = {
        "timeSeries": [
            _series(
                "duty_cycle",
                [(e, {"doubleValue": v}) for e, v in zip(ends, (0.1, 0.2, 0.3), strict=True)],
            )
        ]
    }
    path = _write(tmp_path, page)
    # (0.1 + 0.2) + 0.3 = 0.6000000000000001; 0.1 + (0.2 + 0.3) would be 0.6 (mean 0.19999...).
    expected = 0.20000000000000004
    for columns in (True, False):
        builder = SampleBuilder()
        add_page_file(builder, path, columns=columns)
        firsts = {builder.finish()[0].column("duty_cycle_pct")[0].as_py() for _ in range(20)}
        assert firsts == {expected}


def test_a_page_naming_a_read_key_twice_is_refused_whole(tmp_path: Path) -> None:
    """`"doubleValue": 1, "doubleValue": 40.5`: which is the reading cannot be told (json.loads
    would keep the last silently). Arrow refuses the page, and so does the per-object reader:
    one quarantine row, no point of it loaded."""
    path = _write(tmp_path, HANDED_OVER["a duplicate key"])
    (table, quarantined, _), objects = _both(path)
    assert table.num_rows == 0
    assert [(q.line, q.reason) for q in quarantined] == [
        (None, "page refused: 'doubleValue' named twice in one object")
    ]
    assert objects[0].num_rows == 0 and objects[1] == quarantined


def test_a_key_no_one_reads_may_be_named_twice(tmp_path: Path) -> None:
    """An unread member named twice (`"unit"` of a series) changes nothing read: both readers
    load the page as they would without it."""
    page = _mutated('"unit": "%"', '"unit": "%", "unit": 5')
    (table, quarantined, _), objects = _both(_write(tmp_path, page))
    (plain, plain_quarantined, _), _ = _both(_write(tmp_path, PLAIN, "plain.json"))
    assert table.equals(plain) and quarantined == plain_quarantined
    assert objects[0].equals(plain)
