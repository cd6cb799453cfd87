"""Which UTC usage days the extracts hold, without parsing whole rows."""

from __future__ import annotations

import re
from collections.abc import Collection
from datetime import date, datetime, time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from flopledger.collectors.files import JSON_SUFFIXES
from flopledger.collectors.limits import DEFAULT_LIMITS, Limits, OutOfBounds
from flopledger.collectors.timeparse import BadTimestamp, parse_timestamp

_START = re.compile(r'"usage_start_time"\s*:\s*("[^"]*"|[\d.eE+-]+)')


def _plausible(moment: datetime | None, limits: Limits) -> bool:
    """A day outside the plausible window is never a day to ingest (its row is quarantined)."""
    try:
        return moment is not None and limits.time("usage_start_time", moment) is not None
    except OutOfBounds:
        return False


def _ndjson_days(path: Path, limits: Limits) -> set[date]:
    days: set[date] = set()
    with path.open("r", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            match = _START.search(line)
            if not match:
                continue
            try:
                moment = parse_timestamp(match.group(1).strip('"'))
            except BadTimestamp:
                continue
            if moment is not None and _plausible(moment, limits):
                days.add(moment.date())
    return days


def _parquet_days(path: Path, limits: Limits) -> set[date]:
    try:
        column = pq.read_table(path, columns=["usage_start_time"])["usage_start_time"]
    except Exception:  # noqa: BLE001 - unreadable files are quarantined by the reader
        return set()
    if column.type == "string":
        days = set()
        for value in column.to_pylist():
            try:
                moment = parse_timestamp(value)
            except BadTimestamp:
                continue  # the reader quarantines the row
            if moment is not None and _plausible(moment, limits):
                days.add(moment.date())
        return days
    found = pc.unique(pc.cast(column, "date32")).to_pylist()
    return {d for d in found if d is not None and _plausible(datetime.combine(d, time()), limits)}


def _ndjson_could_hold(
    path: Path, days: Collection[date], limits: Limits, other_day: set[str]
) -> bool:
    """Whether a line of the extract may be a row of `days`: one whose start (any
    `usage_start_time` on the line, a duplicate key too) falls on one of them, or a non-blank
    line with no plausible start to tell (the reader quarantines it, or reads it slowly).
    `other_day`: start texts already found plausible and outside `days` (rows share hours)."""
    with path.open("r", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if not line.strip():
                continue
            found = False
            for match in _START.finditer(line):
                text = match.group(1)
                found = True
                if text in other_day:
                    continue
                try:
                    moment = parse_timestamp(text.strip('"'))
                except BadTimestamp:
                    return True
                if moment is None or not _plausible(moment, limits) or moment.date() in days:
                    return True
                other_day.add(text)
            if not found:
                return True
    return False


def _parquet_could_hold(path: Path, days: Collection[date], limits: Limits) -> bool:
    try:
        column = pq.read_table(path, columns=["usage_start_time"])["usage_start_time"]
        if column.null_count or not pa.types.is_timestamp(column.type):
            return True  # nulls are quarantined by the reader; text starts are rare
        found = pc.unique(pc.cast(column, "date32")).to_pylist()
    except Exception:  # noqa: BLE001 - unreadable: the reader quarantines it
        return True
    return any(
        d in days or not _plausible(datetime.combine(d, time()), limits)
        for d in found
        if d is not None
    )


def files_for_days(
    files: list[Path], days: Collection[date], limits: Limits = DEFAULT_LIMITS
) -> list[Path]:
    """The extracts a run kept to `days` must read, in their order: every file that may hold
    a row of those days, or a row whose day cannot be told without reading it (a file of
    another format, an unreadable one, a row without a plausible start). A file whose every
    row starts on other days is left out before any row is normalised: its rows would all
    be counted outside the window and dropped. A late row (an earlier day, exported later)
    is in a file that holds its day, so it is still read when its day is in `days`."""
    wanted, other_day = set(days), set[str]()
    kept = []
    for path in files:
        suffix = path.suffix.lower()
        try:
            if suffix in JSON_SUFFIXES:
                holds = _ndjson_could_hold(path, wanted, limits, other_day)
            elif suffix == ".parquet":
                holds = _parquet_could_hold(path, wanted, limits)
            else:
                holds = True
        except OSError:
            holds = True  # the reader says what is wrong with it
        if holds:
            kept.append(path)
    return kept


def usage_days(files: list[Path], limits: Limits = DEFAULT_LIMITS) -> set[date]:
    """Every UTC day on which some row's usage starts (unreadable rows are the reader's business)."""
    days: set[date] = set()
    for path in files:
        suffix = path.suffix.lower()
        if suffix in JSON_SUFFIXES:
            days |= _ndjson_days(path, limits)
        elif suffix == ".parquet":
            days |= _parquet_days(path, limits)
    return days
