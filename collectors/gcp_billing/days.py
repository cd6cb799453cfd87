"""Which UTC usage days the extracts hold, without parsing whole rows."""

from __future__ import annotations

import re
from datetime import date, datetime, time
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

from collectors.files import JSON_SUFFIXES
from collectors.limits import DEFAULT_LIMITS, Limits, OutOfBounds
from collectors.timeparse import BadTimestamp, parse_timestamp

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
