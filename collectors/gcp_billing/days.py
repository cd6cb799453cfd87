"""Which UTC usage days the extracts hold, without parsing whole rows."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
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


@dataclass(frozen=True)
class ExtractDays:
    """The plausible UTC usage days of an extract's rows, and whether some row's day cannot be
    told without reading it (a line with no plausible start, an unreadable file, text starts in
    Parquet, a file of another format): such a file is read by every run kept to any days."""

    days: frozenset[date]
    unsure: bool


def _ndjson_extract_days(path: Path, limits: Limits) -> ExtractDays:
    """Every `usage_start_time` on every line (a duplicated key too: any may be the row's)."""
    days, unsure, seen = set[date](), False, dict[str, date | None]()
    with path.open("r", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if not line.strip():
                continue
            found = False
            for match in _START.finditer(line):
                found = True
                text = match.group(1)
                if text not in seen:  # rows share their hours: each start parsed once
                    try:
                        moment = parse_timestamp(text.strip('"'))
                    except BadTimestamp:
                        moment = None
                    plausible = moment is not None and _plausible(moment, limits)
                    seen[text] = moment.date() if moment is not None and plausible else None
                day = seen[text]
                if day is None:
                    unsure = True
                else:
                    days.add(day)
            unsure = unsure or not found
    return ExtractDays(frozenset(days), unsure)


def _parquet_extract_days(path: Path, limits: Limits) -> ExtractDays:
    try:
        column = pq.read_table(path, columns=["usage_start_time"])["usage_start_time"]
    except Exception:  # noqa: BLE001 - unreadable: the reader quarantines it
        return ExtractDays(frozenset(), True)
    if not pa.types.is_timestamp(column.type):  # text starts are rare: read the file
        return ExtractDays(frozenset(_parquet_days(path, limits)), True)
    found = [d for d in pc.unique(pc.cast(column, "date32")).to_pylist() if d is not None]
    days = {d for d in found if _plausible(datetime.combine(d, time()), limits)}
    # a null start is quarantined by the reader; an implausible one too
    return ExtractDays(frozenset(days), bool(column.null_count) or len(days) < len(found))


def extract_days(path: Path, limits: Limits = DEFAULT_LIMITS) -> ExtractDays:
    """What days `path`'s rows start on, from its `usage_start_time` values alone (far cheaper
    than normalising its rows); what a billing run remembers of each extract
    (ingest/gcp_billing/extracts.py)."""
    suffix = path.suffix.lower()
    try:
        if suffix in JSON_SUFFIXES:
            return _ndjson_extract_days(path, limits)
        if suffix == ".parquet":
            return _parquet_extract_days(path, limits)
    except OSError:
        pass  # the reader says what is wrong with it
    return ExtractDays(frozenset(), True)


def could_hold(found: ExtractDays, days: Collection[date]) -> bool:
    """Whether an extract may hold a row of `days`: one starts on one of them, or some row's
    day cannot be told without reading it."""
    return found.unsure or not found.days.isdisjoint(days)
