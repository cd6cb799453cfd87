"""One export record (a dict from NDJSON or Parquet) to one `billing_line_items` row."""

from __future__ import annotations

import json
from datetime import datetime
from decimal import Decimal
from typing import Any

from collectors.accelerators import accelerator_seconds, classify_sku
from collectors.gcp_billing.canonical import canonical_value, row_id
from collectors.gcp_billing.fields import KNOWN_TOP_LEVEL
from collectors.money import BadNumber, money, to_decimal, to_usd
from collectors.timeparse import BadTimestamp, parse_timestamp

RATE_PLACES = Decimal("1e-18")


class BadRow(ValueError):
    """A record that cannot be a billing row; the message is the quarantine reason."""


def _get(record: dict[str, Any], path: str) -> Any:
    value: Any = record
    for part in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def _text(record: dict[str, Any], path: str) -> str | None:
    value = _get(record, path)
    return None if value is None else str(value)


def _number(record: dict[str, Any], path: str) -> Decimal | None:
    try:
        return to_decimal(_get(record, path))
    except BadNumber as exc:
        raise BadRow(f"{path}: {exc}") from None


def _time(record: dict[str, Any], path: str) -> datetime | None:
    try:
        return parse_timestamp(_get(record, path))
    except BadTimestamp as exc:
        raise BadRow(f"{path}: {exc}") from None


def _labels(record: dict[str, Any], path: str) -> list[tuple[str, str]]:
    """A repeated key/value record as map entries (a later duplicate key wins)."""
    items = _get(record, path) or []
    if not isinstance(items, list):
        raise BadRow(f"{path}: expected a list of {{key, value}} records")
    found: dict[str, str] = {}
    for item in items:
        if isinstance(item, dict) and item.get("key") is not None:
            found[str(item["key"])] = "" if item.get("value") is None else str(item["value"])
    return list(found.items())


def _credits(record: dict[str, Any]) -> list[dict[str, Any]]:
    items = record.get("credits") or []
    if not isinstance(items, list):
        raise BadRow("credits: expected a list of credit records")
    credits = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise BadRow(f"credits[{i}]: expected a record")
        credits.append(
            {
                "name": _text(item, "name"),
                "amount": money(_number(item, "amount")) or Decimal(0),
                "full_name": _text(item, "full_name"),
                "id": _text(item, "id"),
                "type": _text(item, "type"),
            }
        )
    return credits


def _window(record: dict[str, Any]) -> tuple[datetime, datetime]:
    start, end = _time(record, "usage_start_time"), _time(record, "usage_end_time")
    if start is None or end is None:
        raise BadRow("usage_start_time and usage_end_time are required")
    if end < start:
        raise BadRow(f"usage ends before it starts ({end.isoformat()} < {start.isoformat()})")
    return start, end


def _extra(record: dict[str, Any]) -> str | None:
    extra = {k: canonical_value(k, v) for k, v in record.items() if k not in KNOWN_TOP_LEVEL}
    return json.dumps(extra, sort_keys=True, default=str) if extra else None


def normalise(record: Any, source: str, line: int, ingested_at: datetime) -> dict[str, Any]:
    """The `billing_line_items` row for one export record, or BadRow with the reason."""
    if not isinstance(record, dict):
        raise BadRow(f"expected a JSON object, got {type(record).__name__}")
    start, end = _window(record)
    cost = _number(record, "cost")
    if cost is None:
        raise BadRow("cost is missing")
    rate = _number(record, "currency_conversion_rate")
    if rate is not None and rate <= 0:
        raise BadRow(f"currency_conversion_rate must be positive, got {rate}")
    if rate is not None:
        rate = rate.quantize(RATE_PLACES)
    credits = _credits(record)
    credits_total = sum((c["amount"] for c in credits), Decimal(0))
    cost_at_list = money(_number(record, "cost_at_list"))
    sku = _text(record, "sku.description")
    info = classify_sku(sku)
    usage_amount = _number(record, "usage.amount")
    usage_unit = _text(record, "usage.unit")
    return {
        "row_id": row_id(record),
        "usage_day": start.date(),
        "usage_start": start,
        "usage_end": end,
        "export_time": _time(record, "export_time"),
        "provider": "gcp",
        "billing_account_id": _text(record, "billing_account_id"),
        "project_id": _text(record, "project.id"),
        "project_number": _text(record, "project.number"),
        "project_name": _text(record, "project.name"),
        "service_id": _text(record, "service.id"),
        "service_name": _text(record, "service.description"),
        "sku_id": _text(record, "sku.id"),
        "sku_description": sku,
        "resource_name": _text(record, "resource.name"),
        "resource_global_name": _text(record, "resource.global_name"),
        "location": _text(record, "location.location"),
        "country": _text(record, "location.country"),
        "region": _text(record, "location.region"),
        "zone": _text(record, "location.zone"),
        "usage_amount": money(usage_amount),
        "usage_unit": usage_unit,
        "usage_amount_in_pricing_units": money(_number(record, "usage.amount_in_pricing_units")),
        "usage_pricing_unit": _text(record, "usage.pricing_unit"),
        "cost": money(cost),
        "credits_total": money(credits_total),
        "credits": credits,
        "cost_at_list": cost_at_list,
        "currency": _text(record, "currency"),
        "currency_conversion_rate": rate,
        "cost_usd": to_usd(cost, rate),
        "credits_total_usd": to_usd(credits_total, rate),
        "cost_at_list_usd": to_usd(cost_at_list, rate),
        "cost_type": _text(record, "cost_type"),
        "adjustment_type": _text(record, "adjustment_info.type"),
        "adjustment_mode": _text(record, "adjustment_info.mode"),
        "invoice_month": _text(record, "invoice.month"),
        "transaction_type": _text(record, "transaction_type"),
        "labels": _labels(record, "labels"),
        "system_labels": _labels(record, "system_labels"),
        "project_labels": _labels(record, "project.labels"),
        "accelerator_type": info.accelerator_type,
        "accelerator_seconds": money(accelerator_seconds(info.accelerator_type, usage_amount, usage_unit)),
        "pricing_model": info.pricing_model,
        "extra_fields": _extra(record),
        "source": source,
        "source_line": line,
        "ingested_at": ingested_at,
    }
