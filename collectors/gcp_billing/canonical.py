"""One canonical text per export row, whatever file format carried it.

Two rows are the same row only when every field, `export_time` included, is equal.
The text normalises what extracts vary in without changing meaning: numbers written
as strings, a missing field versus null or an empty list, key order, timestamp spelling.
"""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from typing import Any

from flopledger.collectors.gcp_billing.fields import (
    BOOLEAN_FIELDS,
    NUMERIC_FIELDS,
    TIMESTAMP_FIELDS,
)
from flopledger.collectors.money import to_decimal
from flopledger.collectors.timeparse import parse_timestamp


def _number_text(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "0") else text


def _bool(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() == "true"
    return bool(value)


def canonical_value(path: str, value: Any) -> Any:
    """The canonical form of one field value at a dotted path (list items share their path)."""
    if value is None or value == [] or value == {}:
        return None
    if isinstance(value, dict):
        items = {k: canonical_value(f"{path}.{k}" if path else k, v) for k, v in value.items()}
        kept = {k: v for k, v in sorted(items.items()) if v is not None}
        return kept or None
    if isinstance(value, list):
        return [canonical_value(path, v) for v in value]
    if path in NUMERIC_FIELDS:
        number = to_decimal(value)
        return None if number is None else _number_text(number)
    if path in TIMESTAMP_FIELDS:
        moment = parse_timestamp(value)
        return None if moment is None else moment.isoformat()
    if path in BOOLEAN_FIELDS:
        return _bool(value)
    return str(value) if not isinstance(value, str) else value


def canonical_text(record: dict[str, Any]) -> str:
    return json.dumps(canonical_value("", record), sort_keys=True, separators=(",", ":"))


def row_id(record: dict[str, Any]) -> str:
    """A stable id of the row's full content: equal ids, equal rows."""
    return hashlib.sha256(canonical_text(record).encode()).hexdigest()[:32]
