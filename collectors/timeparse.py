"""Timestamps as the world writes them, to naive datetimes meaning UTC."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal


class BadTimestamp(ValueError):
    """A value that should be a timestamp and is not."""


def _from_epoch(seconds: float) -> datetime:
    # Epoch values past year 3000 in seconds are taken as microseconds (BigQuery REST writes both).
    if abs(seconds) > 32_503_680_000:
        seconds = seconds / 1_000_000
    try:
        return datetime.fromtimestamp(seconds, tz=UTC).replace(tzinfo=None)
    except (ValueError, OverflowError, OSError):
        raise BadTimestamp(f"{seconds!r} is not a time this side of year 9999") from None


def parse_timestamp(value: object) -> datetime | None:
    """Parse BigQuery-extract text ("2024-05-01 10:00:00 UTC"), ISO 8601, epoch numbers or datetimes."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return _to_utc(value, value)
    if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool):
        return _from_epoch(float(value))
    if not isinstance(value, str):
        raise BadTimestamp(f"{value!r} is not a timestamp")
    text = value.strip()
    try:
        number = float(text)
    except ValueError:
        number = None
    if number is not None:
        return _from_epoch(number)
    if text.endswith(" UTC"):
        text = text[:-4] + "+00:00"
    elif text.endswith("Z"):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise BadTimestamp(f"{value!r} is not a timestamp") from None
    return _to_utc(parsed, value)


def _to_utc(moment: datetime, value: object) -> datetime:
    """Naive UTC; a time whose offset takes it past year 9999 or before year 1 (9999-12-31T23:00
    at -05:00) is a BadTimestamp, never an OverflowError out of the reader."""
    if moment.tzinfo is None:
        return moment
    try:
        return moment.astimezone(UTC).replace(tzinfo=None)
    except OverflowError:
        raise BadTimestamp(f"{value!r} is not a time between years 1 and 9999 in UTC") from None


def naive_utc(moment: datetime) -> datetime:
    """A datetime as naive UTC: aware times converted to UTC, naive ones taken as UTC already
    (BadTimestamp when its offset takes it out of datetime's range)."""
    return _to_utc(moment, moment)
