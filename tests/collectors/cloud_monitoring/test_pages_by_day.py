"""Saved pages read a day at a time (PagesByDay): each point and each refusal handed out once,
on its own day, whatever the layout, and the same rows as a read of the whole window.

The fleet of pages (window 2026-10-01 .. 2026-10-02), worked by hand:
- flat/a.json (no day in its name), chip 1's duty cycle: points ending 23:59 and 00:00 (the
  minutes 23:58 and 23:59 of 10-01), 00:01 (minute 00:00 of 10-02), a 500% point on 10-02
  (refused), one on 10-03 (outside the window); and a series with no metric (refused);
- 2026-10-02/b.json: chip 2, minute 12:00 of 10-02;
- 2026-10-02/d.json: chip 3, minute 05:00 of 10-01 (a file holding a day before its folder's:
  parsed on 10-01, its first day, so the point is not lost);
- flat/c.json: not JSON (refused whole; it names no day, so it is read on the first day).
Day 10-01: chip 1 x2 + chip 3 = 3 rows; refusals: the series, the 500% point, c.json = 3.
Day 10-02: chip 1 + chip 2 = 2 rows, no refusals. The rest: chip 1 on 10-03, 1 row.
"""

from __future__ import annotations

import json
from datetime import date

import pyarrow as pa
import pytest

from flopledger.collectors.cloud_monitoring import PagesByDay, read_saved_pages
from flopledger.collectors.cloud_monitoring.pages import page_days

DUTY = "tpu.googleapis.com/accelerator/duty_cycle"
NODE = {"project_id": "p", "zone": "us-west4-a", "node_id": "node-w", "worker_id": "0"}
DAY1, DAY2 = date(2026, 10, 1), date(2026, 10, 2)


def _series(chip: str, *points: tuple[str, float]) -> dict:
    return {
        "metric": {"type": DUTY, "labels": {"accelerator_id": chip}},
        "resource": {"type": "tpu_worker", "labels": NODE},
        "points": [{"interval": {"endTime": e}, "value": {"doubleValue": v}} for e, v in points],
    }


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("pages")
    for folder in ("flat", "2026-10-02"):
        (root / folder).mkdir()
    chip1 = _series(
        "1",
        ("2026-10-03T10:01:00Z", 10.0),
        ("2026-10-02T10:01:00Z", 500.0),
        ("2026-10-02T00:01:00Z", 30.0),
        ("2026-10-02T00:00:00Z", 20.0),
        ("2026-10-01T23:59:00Z", 10.0),
    )
    page = {"timeSeries": [chip1, {"resource": {"type": "tpu_worker"}}]}
    (root / "flat" / "a.json").write_text(json.dumps(page))
    (root / "flat" / "c.json").write_text("{not json")
    b = {"timeSeries": [_series("2", ("2026-10-02T12:01:00Z", 40.0))]}
    (root / "2026-10-02" / "b.json").write_text(json.dumps(b))
    d = {"timeSeries": [_series("3", ("2026-10-01T05:01:00Z", 50.0))]}
    (root / "2026-10-02" / "d.json").write_text(json.dumps(d))
    return root


def _cells(table: pa.Table) -> list[tuple]:
    rows = zip(
        table["accelerator_id"].to_pylist(),
        [m.strftime("%m-%d %H:%M") for m in table["minute"].to_pylist()],
        table["duty_cycle_pct"].to_pylist(),
        strict=True,
    )
    return sorted(rows)


def test_each_day_gets_its_own_points_and_each_refusal_comes_once(root):
    pages = PagesByDay([root])
    rows1, refused1 = pages.day(DAY1)
    rows2, refused2 = pages.day(DAY2)
    rest, refused_rest, _ = pages.rest()
    assert _cells(rows1) == [
        ("1", "10-01 23:58", 10.0),
        ("1", "10-01 23:59", 20.0),
        ("3", "10-01 05:00", 50.0),
    ]
    assert _cells(rows2) == [("1", "10-02 00:00", 30.0), ("2", "10-02 12:00", 40.0)]
    assert _cells(rest) == [("1", "10-03 10:00", 10.0)]
    assert sorted(q.reason[:20] for q in refused1) == [
        "page is not JSON: Ex",
        "point: duty_cycle_pc",
        "time series has no m",
    ]
    assert refused2 == [] and refused_rest == []


def test_the_days_together_are_the_whole_window_read_at_once(root):
    whole, refused, notes = read_saved_pages([root])
    pages = PagesByDay([root])
    parts = [pages.day(DAY1), pages.day(DAY2)]
    rest, refused_rest, notes_by_day = pages.rest()
    by_day = pa.concat_tables([t for t, _ in parts] + [rest])
    assert _cells(by_day) == _cells(whole) and by_day.num_rows == 6
    assert by_day.sort_by("sample_id").equals(whole.sort_by("sample_id"))
    ids = sorted(q.quarantine_id for _, qs in parts for q in qs)
    assert ids == sorted(q.quarantine_id for q in refused) and len(ids) == 3
    assert notes_by_day == notes


def test_no_pages_and_a_window_with_nothing(tmp_path):
    pages = PagesByDay([tmp_path])
    rows, refused = pages.day(DAY1)
    assert rows.num_rows == 0 and refused == []
    assert pages.rest()[0].num_rows == 0


def test_a_series_read_as_arrays_refuses_only_its_bad_point(tmp_path):
    """Four int64 points of chip 9's HBM bytes: 5, 7, "-1" (refused: not a byte count) and
    "x" (refused: not a number); the two good ones load as 5 and 7, and an all-good double
    series (chip 8: 1.5, NaN) loads as read, NaN a missing reading."""
    hbm = "tpu.googleapis.com/accelerator/memory_used"
    bad = _series("9")
    bad["metric"]["type"] = hbm
    bad["points"] = [
        {"interval": {"endTime": f"2026-10-01T10:0{n}:00Z"}, "value": {"int64Value": v}}
        for n, v in ((1, "5"), (2, "7"), (3, "-1"), (4, "x"))
    ]
    good = _series("8", ("2026-10-01T10:02:00Z", 1.5), ("2026-10-01T10:01:00Z", "NaN"))
    (tmp_path / "p.json").write_text(json.dumps({"timeSeries": [bad, good]}))
    table, refused, _ = read_saved_pages([tmp_path])
    rows = sorted(
        zip(
            table["accelerator_id"].to_pylist(),
            [m.minute for m in table["minute"].to_pylist()],
            table["hbm_used_bytes"].to_pylist(),
            table["duty_cycle_pct"].to_pylist(),
            strict=True,
        )
    )
    assert rows == [("8", 0, None, None), ("8", 1, None, 1.5), ("9", 0, 5, None), ("9", 1, 7, None)]
    assert sorted(q.reason for q in refused) == [
        "point: hbm_used_bytes: -1.0 is not a byte count that fits BIGINT",
        "point: point.value {'int64Value': 'x'} is not a number",
    ]


def test_page_days_by_hand_and_a_rewritten_file_scanned_again(tmp_path) -> None:
    """page_days (the run's listing and PagesByDay's first days) from the endTime values:
    a point ending at midnight names the day before too; an offset is taken to UTC; a time
    it cannot read (year 1 less five hours) or outside the plausible window names none.
    The scan is kept per file as it is: a file rewritten is scanned again."""
    path = tmp_path / "p.json"
    ends = [
        ("2026-10-01T00:00:00Z", 1.0),  # minute 23:59 of 09-30: both days named
        ("2026-10-03T02:00:00+05:00", 2.0),  # 21:00 UTC on 10-02
        ("0001-01-01T00:00:00+05:00", 3.0),  # before year 1 in UTC: unreadable
        ("1999-12-31T12:00:00Z", 4.0),  # before limits.earliest (2000-01-01)
    ]
    path.write_text(json.dumps({"timeSeries": [_series("0", *ends)]}))
    assert page_days([tmp_path]) == {date(2026, 9, 30), date(2026, 10, 1), date(2026, 10, 2)}
    path.write_text(json.dumps({"timeSeries": [_series("0", ("2026-10-05T10:00:00Z", 1.0))]}))
    assert page_days([path]) == {date(2026, 10, 5)}
