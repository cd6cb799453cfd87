"""Typed values out of parsed JSON or CSV cells, each failure a `BadValue` naming the field."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from flopledger.collectors.limits import DEFAULT_LIMITS, Limits, OutOfBounds, fits
from flopledger.collectors.money import BadNumber, money, to_decimal
from flopledger.collectors.timeparse import BadTimestamp, parse_timestamp


class BadValue(ValueError):
    """A field whose value cannot be stored in its column; the message says which and why."""


def text(name: str, value: Any, required: bool = False) -> str | None:
    if value is None or value == "":
        if required:
            raise BadValue(f"missing required field {name}")
        return None
    if not isinstance(value, str):
        raise BadValue(f"{name} must be a string, got {value!r}")
    return value


def count(name: str, value: Any, default: int | None = None) -> int | None:
    """A whole, non-negative count (JSON integer, or a numeric string from CSV)."""
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        raise BadValue(f"{name} must be a whole number, got {value!r}")
    try:
        number = to_decimal(value)
    except BadNumber:
        raise BadValue(f"{name} must be a whole number, got {value!r}") from None
    if number is None or number != number.to_integral_value() or number < 0:
        raise BadValue(f"{name} must be a whole number >= 0, got {value!r}")
    try:
        return fits(name, int(number))  # 1e30 tokens would not fit the BIGINT column
    except OutOfBounds as exc:
        raise BadValue(str(exc)) from None


def amount(
    name: str, value: Any, allow_negative: bool = False, limits: Limits = DEFAULT_LIMITS
) -> Decimal | None:
    """Money as an exact DECIMAL(38, 9) value (floats through their shortest repr), within
    `limits.max_money`."""
    try:
        result = limits.money(name, money(to_decimal(value)))
    except BadNumber as exc:
        raise BadValue(f"{name}: {exc}") from None
    except OutOfBounds as exc:
        raise BadValue(str(exc)) from None
    if result is not None and result < 0 and not allow_negative:
        raise BadValue(f"{name} must not be negative, got {value!r}")
    return result


def timestamp(
    name: str, value: Any, required: bool = False, limits: Limits | None = None
) -> datetime | None:
    """A time as naive UTC; with `limits`, inside their plausible window (a request in year
    9999 is refused here, before any day arithmetic sees it). A price book's dates go
    without: an open end of 9999-12-31 is a convention there, and no day is made of it."""
    try:
        moment = parse_timestamp(value)
        result = moment if limits is None else limits.time(name, moment)
    except BadTimestamp as exc:
        raise BadValue(f"{name}: {exc}") from None
    except OutOfBounds as exc:
        # An epoch number past year 3000 in seconds is read as microseconds (timeparse): the
        # value as written beside the time it was read as.
        numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
        raise BadValue(f"{exc} (written {value!r})" if numeric else str(exc)) from None
    if result is None and required:
        raise BadValue(f"missing required field {name}")
    return result
