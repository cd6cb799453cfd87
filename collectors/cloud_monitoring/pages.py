"""Saved ListTimeSeriesResponse pages: read them, and write them (for the fleet simulator).

A saved page is exactly the API's JSON (camelCase, int64 values as strings, points newest
first, `nextPageToken` naming the next page). `write_pages` builds the JSON text directly,
not through protobuf, so a month of a few hundred chips writes in reasonable time.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from flopledger.collectors.cloud_monitoring.columnar import (
    add_parsed,
    noting_twice,
    parse_page,
    read_key_twice,
)
from flopledger.collectors.cloud_monitoring.inventory import Inventory, as_inventory
from flopledger.collectors.cloud_monitoring.parse import SampleBuilder
from flopledger.collectors.limits import DEFAULT_LIMITS, Limits
from flopledger.collectors.quarantine import Quarantined

PAGE_GLOB = "*.json"
_ALIGN = timedelta(seconds=60)


def page_paths(paths: Iterable[str | Path]) -> Iterator[Path]:
    """Each given file, and every *.json under each given directory, in name order."""
    for path in map(Path, paths):
        if path.is_dir():
            yield from sorted(p for p in path.rglob(PAGE_GLOB) if p.is_file())
        else:
            yield path


def add_page_file(builder: SampleBuilder, path: Path, *, columns: bool = True) -> None:
    """Read one saved page into the builder; an unreadable file is quarantined whole. The
    page is read in columns (columnar.py) when it can be, else as JSON objects: the same
    rows, refusals and notes either way (`columns=False` forces the latter)."""
    _add_parsed_file(builder, path, _parsed_file(path) if columns else None)


def _parsed_file(path: Path) -> pa.Array | None:
    try:
        return parse_page(path.read_bytes())
    except OSError:
        return None  # the per-object read quarantines it with the reason


def _add_parsed_file(builder: SampleBuilder, path: Path, parsed: pa.Array | None) -> None:
    if parsed is None or not add_parsed(builder, parsed):
        _add_page_objects(builder, path)


def _add_page_objects(builder: SampleBuilder, path: Path) -> None:
    """The per-object read of a page: json.loads, then the builder's dicts."""
    try:
        text = path.read_text(encoding="utf-8-sig")  # a BOM is not part of the page
    except (OSError, UnicodeDecodeError) as exc:
        builder.refuse(str(path), None, f"cannot read page file: {exc}", "")
        return
    try:
        page = json.loads(text, parse_int=_json_int, object_pairs_hook=noting_twice)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        builder.refuse(str(path), None, f"page is not JSON: {exc}", text)
        return
    if twice := read_key_twice(page):  # which of the two values is meant cannot be told
        builder.refuse(str(path), None, f"page refused: {twice!r} named twice in one object", text)
        return
    builder.add_page(page, str(path))


def _json_int(text: str) -> int | float:
    """A JSON integer token; past Python's 4,300-digit guard on int(), a float (inf): a
    number in a member no one reads does not make a valid page "not JSON" (Arrow reads it)."""
    return int(text) if len(text) <= 4300 else float(text)


def parsed_ahead(paths: list[Path], ahead: int = 4) -> Iterator[pa.Array | None]:
    """`parse_page` of each file, in order, parsed on two threads at most `ahead` files in
    front of the caller (Arrow's parse lets go of the GIL; memory holds a few pages)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        waiting = [pool.submit(_parsed_file, p) for p in paths[:ahead]]
        for after in paths[ahead:]:
            yield waiting.pop(0).result()
            waiting.append(pool.submit(_parsed_file, after))
        for future in waiting:
            yield future.result()


_END_TIME = re.compile(rb'"endTime"\s*:\s*"([^"]{10,40})"')


def _end_instant(text: str) -> datetime | None:
    """The UTC instant (naive) a point ends at, from `text`; None when unreadable."""
    head, offset = text[:19], text[19:].lstrip("0123456789.")
    try:
        when = datetime.fromisoformat(head + ("" if offset in ("", "Z") else offset))
        return when if when.tzinfo is None else when.astimezone(UTC).replace(tzinfo=None)
    except (ValueError, OverflowError):  # OverflowError: year 1 less an offset
        return None


@functools.lru_cache(maxsize=4096)
def _file_instants(path: str, *version: int) -> np.ndarray:
    """The distinct instants a page file's points end at (sorted datetime64[us]), by a scan
    of its endTime values; kept for the file as it is (`version`: inode, size, mtime and
    ctime), so the run's listing and the read of its pages scan a file once between them.
    (A listing of more files than the cache holds scans them again: slower, not wrong.)"""
    found = set(_END_TIME.findall(Path(path).read_bytes()))
    # Only ASCII: no other text is a time fromisoformat reads.
    ends = {end.decode("ascii") for end in found if end.isascii()}
    instants = {when for when in map(_end_instant, ends) if when is not None}
    return np.array(sorted(instants), dtype="datetime64[us]")


def _file_days(path: Path, limits: Limits) -> set[date]:
    """The UTC days of the minutes a page file's points cover (a point ending at 00:00:00
    covers 23:59 the day before, so both days are named then: a window one day wider is
    harmless); points ending outside the plausible window name no day."""
    try:
        stat = path.stat()
        instants = _file_instants(
            os.fspath(path), stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns
        )
    except OSError:
        return set()  # the reader quarantines it
    earliest, latest = np.datetime64(limits.earliest, "us"), np.datetime64(limits.latest, "us")
    inside = instants[(instants >= earliest) & (instants <= latest)]
    before = inside - np.timedelta64(1, "us")
    return set(inside.astype("datetime64[D]").tolist()) | set(
        before.astype("datetime64[D]").tolist()
    )


def page_days(paths: Iterable[str | Path], limits: Limits = DEFAULT_LIMITS) -> set[date]:
    """The UTC days the saved pages hold points for, by a scan of their endTime values (no
    parse): so `flopledger run`'s window takes a TPU day no bill or run names, rather than
    leaving its points out of the window."""
    days: set[date] = set()
    for path in page_paths(paths):
        days |= _file_days(path, limits)
    return days


def read_saved_pages(
    paths: Iterable[str | Path],
    *,
    inventory: Inventory | str | Path | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[pa.Table, list[Quarantined], list[str]]:
    """`tpu_samples` rows from saved pages; also the quarantined inputs and the notes
    (series that map to no billed node, pages that say their data is incomplete)."""
    builder = SampleBuilder(as_inventory(inventory), limits)
    for path in page_paths(paths):
        add_page_file(builder, path)
    return builder.finish()


class PagesByDay:
    """Saved pages read a day at a time, so that memory holds about a day of the fleet's
    points, not the window's: `day(d)` for each window day in order, then `rest()`.

    Each file is parsed once, on the first day it holds a point for (a scan of its endTime
    values: `page_days`); its points of later days wait, compact, in the builder for their
    day. A file with no readable day, or one that starts before the window, is parsed on the
    first day. So every point and every refusal is handed out exactly once, whatever the
    layout (a folder per day, or flat files holding many days), and the rows of a day are
    those a read of the whole window gives for it."""

    def __init__(
        self,
        paths: Iterable[str | Path],
        *,
        inventory: Inventory | str | Path | None = None,
        limits: Limits = DEFAULT_LIMITS,
        columns: bool = True,
    ) -> None:
        self._builder = SampleBuilder(as_inventory(inventory), limits)
        self._columns = columns
        first = [(min(page_days([p], limits), default=None), p) for p in page_paths(paths)]
        # Undated files first, then by first day; name order within a day (a stable sort).
        self._queue = sorted(first, key=lambda fp: (fp[0] is not None, fp[0] or date.min))

    def _parse_until(self, day: date | None) -> None:
        due: list[Path] = []
        while self._queue and (
            day is None or self._queue[0][0] is None or self._queue[0][0] <= day
        ):
            due.append(self._queue.pop(0)[1])
        parsed = parsed_ahead(due) if self._columns else (None for _ in due)
        for path, table in zip(due, parsed, strict=True):
            _add_parsed_file(self._builder, path, table)

    def day(self, day: date) -> tuple[pa.Table, list[Quarantined]]:
        """The rows of `day`, and what was quarantined while reading for it. Days must be
        asked in increasing order: points of an earlier day read now are in `rest()`."""
        self._parse_until(day)
        return self._builder.take_day(day), self._builder.take_quarantined()

    def rest(self) -> tuple[pa.Table, list[Quarantined], list[str]]:
        """Everything not handed out by `day` (files of days after the window, points of days
        outside it), what was quarantined reading it, and every note of the window."""
        self._parse_until(None)
        table = self._builder.take_day(None)
        return table, self._builder.take_quarantined(), self._builder.notes


# --- writing -------------------------------------------------------------------------


def _stamp(minute: datetime, cache: dict[datetime, str]) -> str:
    """RFC 3339 end time of the aligned 60 s period that starts at `minute`."""
    text = cache.get(minute)
    if text is None:
        end = minute + _ALIGN
        if end.tzinfo is not None:
            end = end.astimezone(UTC).replace(tzinfo=None)
        text = cache[minute] = end.strftime("%Y-%m-%dT%H:%M:%SZ")
    return text


_SPECIAL_DOUBLES = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def _value_json(value: float | int, value_type: str) -> str:
    """A TypedValue as proto3 JSON: int64 as a string; NaN and infinities as strings."""
    if value_type == "INT64":
        return f'{{"int64Value":"{int(value)}"}}'
    text = repr(float(value))
    special = _SPECIAL_DOUBLES.get(text)
    return f'{{"doubleValue":"{special}"}}' if special else f'{{"doubleValue":{text}}}'


def _value_type(points: Sequence[tuple[datetime, float | int | None]]) -> str:
    values = [v for _, v in points if v is not None]
    ints = all(isinstance(v, int) and not isinstance(v, bool) for v in values)
    return "INT64" if values and ints else "DOUBLE"


def series_json(series: Mapping[str, Any], cache: dict[datetime, str]) -> str:
    """One TimeSeries as API JSON text; points newest first; None values are left out."""
    points = [p for p in series["points"] if p[1] is not None]
    value_type = series.get("value_type") or _value_type(points)
    head = {
        "metric": {
            "type": series["metric_type"],
            "labels": dict(series.get("metric_labels") or {}),
        },
        "resource": {"type": series["resource_type"], "labels": dict(series["resource_labels"])},
        "metricKind": "GAUGE",
        "valueType": value_type,
    }
    parts = []
    for minute, value in sorted(points, key=lambda p: p[0], reverse=True):
        stamp = _stamp(minute, cache)
        interval = f'{{"startTime":"{stamp}","endTime":"{stamp}"}}'
        parts.append(f'{{"interval":{interval},"value":{_value_json(value, value_type)}}}')
    return json.dumps(head)[:-1] + ',"points":[' + ",".join(parts) + "]}"


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    tmp.replace(path)


def write_pages(
    directory: str | Path,
    series: Iterable[Mapping[str, Any]],
    page_size: int = 100,
    *,
    prefix: str = "page",
    unit: str | None = None,
) -> list[Path]:
    """Write series as saved ListTimeSeriesResponse pages, `page_size` series a page.

    Each series is a mapping: `metric_type`, `resource_type`, `resource_labels`,
    `metric_labels` (optional), `points` (a list of (minute start as naive UTC datetime,
    value or None)), and optionally `value_type` ("INT64" or "DOUBLE"; by default INT64 when
    every value is an int). A point is written as the API returns a 60 s aligned point: it
    ends at minute + 60 s. Files are `<prefix>-00001.json`, ...; each page's
    `nextPageToken` names the next file. Returns the paths written.
    """
    if page_size < 1:
        raise ValueError("page_size must be at least 1")
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    cache: dict[datetime, str] = {}
    written: list[Path] = []
    chunk: list[str] = []
    for one in series:  # streamed: at most one page of series is held in memory
        if len(chunk) == page_size:
            written.append(_write_page(out, prefix, len(written) + 1, chunk, unit, more=True))
            chunk = []
        chunk.append(series_json(one, cache))
    written.append(_write_page(out, prefix, len(written) + 1, chunk, unit, more=False))
    return written


def _write_page(
    out: Path, prefix: str, number: int, chunk: list[str], unit: str | None, *, more: bool
) -> Path:
    token = f"{prefix}-{number + 1:05d}" if more else None
    path = out / f"{prefix}-{number:05d}.json"
    _write_atomic(path, _page_text(chunk, token, unit))
    return path


def _page_text(series_texts: list[str], token: str | None, unit: str | None) -> str:
    tail = "".join(
        f",{json.dumps(k)}:{json.dumps(v)}"
        for k, v in (("unit", unit), ("nextPageToken", token))
        if v
    )
    return '{"timeSeries":[' + ",\n".join(series_texts) + "]" + tail + "}\n"
