"""Simulated time: integer microseconds since the Unix epoch (UTC), and their spellings."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

US = 1_000_000
MINUTE_US = 60 * US
HOUR_US = 3600 * US
DAY_US = 24 * HOUR_US
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def day_start_us(day: date) -> int:
    """Microseconds at 00:00 UTC of `day`."""
    return (datetime(day.year, day.month, day.day, tzinfo=UTC) - _EPOCH) // timedelta(
        microseconds=1
    )


def to_datetime(us: int) -> datetime:
    """An aware UTC datetime."""
    return _EPOCH + timedelta(microseconds=us)


def to_naive(us: int) -> datetime:
    """A naive datetime meaning UTC."""
    return datetime(1970, 1, 1) + timedelta(microseconds=us)


def day_of(us: int) -> date:
    return to_datetime(us).date()


def bq_text(us: int) -> str:
    """As a BigQuery extract writes a TIMESTAMP: "2026-10-01 04:00:00 UTC" (fraction when present)."""
    moment = to_naive(us)
    if moment.microsecond:
        return moment.strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def iso_text(us: int) -> str:
    """RFC 3339 with Z, microseconds only when present (the jobs file)."""
    moment = to_naive(us)
    if moment.microsecond:
        return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def hour_floor(us: int) -> int:
    return us - us % HOUR_US


def hour_overlaps(start_us: int, end_us: int) -> list[tuple[int, int]]:
    """(hour start, overlap microseconds) for each UTC hour [start, end) overlaps, in order.

    A zero-length window gives its start hour with overlap 0."""
    if end_us <= start_us:
        return [(hour_floor(start_us), 0)]
    out = []
    hour = hour_floor(start_us)
    while hour < end_us:
        overlap = min(end_us, hour + HOUR_US) - max(start_us, hour)
        out.append((hour, overlap))
        hour += HOUR_US
    return out
