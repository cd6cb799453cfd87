"""Typed values out of parsed JSON or CSV cells, each failure a `BadValue` naming the field."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

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
    return int(number)


def amount(name: str, value: Any, allow_negative: bool = False) -> Decimal | None:
    """Money as an exact DECIMAL(38, 9) value (floats through their shortest repr)."""
    try:
        result = money(to_decimal(value))
    except BadNumber as exc:
        raise BadValue(f"{name}: {exc}") from None
    if result is not None and result < 0 and not allow_negative:
        raise BadValue(f"{name} must not be negative, got {value!r}")
    return result


def timestamp(name: str, value: Any, required: bool = False) -> datetime | None:
    try:
        result = parse_timestamp(value)
    except BadTimestamp as exc:
        raise BadValue(f"{name}: {exc}") from None
    if result is None and required:
        raise BadValue(f"missing required field {name}")
    return result
