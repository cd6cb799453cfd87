"""One export record (a dict from NDJSON or Parquet) to one `billing_line_items` row."""

from __future__ import annotations

import json
import re
from datetime import datetime
from decimal import Decimal
from typing import Any

from flopledger.collectors.accelerators import accelerator_seconds
from flopledger.collectors.gcp_billing.canonical import canonical_value, row_id
from flopledger.collectors.gcp_billing.fields import KNOWN_TOP_LEVEL
from flopledger.collectors.limits import DEFAULT_LIMITS, Limits, OutOfBounds
from flopledger.collectors.money import BadNumber, money, to_decimal, to_usd
from flopledger.collectors.skus import classify_sku
from flopledger.collectors.timeparse import BadTimestamp, parse_timestamp

RATE_PLACES = Decimal("1e-18")


_INVOICE_MONTH = re.compile(r"\d{4}(0[1-9]|1[0-2])")  # the export's invoice.month: YYYYMM


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


def _window(record: dict[str, Any], limits: Limits) -> tuple[datetime, datetime]:
    start, end = _time(record, "usage_start_time"), _time(record, "usage_end_time")
    if start is None or end is None:
        raise BadRow("usage_start_time and usage_end_time are required")
    if end < start:
        raise BadRow(f"usage ends before it starts ({end.isoformat()} < {start.isoformat()})")
    limits.time("usage_start_time", start)
    limits.time("usage_end_time", end)
    limits.span("usage", start, end)
    return start, end


def _extra(record: dict[str, Any]) -> str | None:
    extra = {k: canonical_value(k, v) for k, v in record.items() if k not in KNOWN_TOP_LEVEL}
    return json.dumps(extra, sort_keys=True, default=str) if extra else None


# Plain text fields: output column -> dotted path in the export record.
TEXT_FIELDS = {
    "billing_account_id": "billing_account_id",
    "project_id": "project.id",
    "project_number": "project.number",
    "project_name": "project.name",
    "service_id": "service.id",
    "service_name": "service.description",
    "sku_id": "sku.id",
    "sku_description": "sku.description",
    "resource_name": "resource.name",
    "resource_global_name": "resource.global_name",
    "location": "location.location",
    "country": "location.country",
    "region": "location.region",
    "zone": "location.zone",
    "usage_unit": "usage.unit",
    "usage_pricing_unit": "usage.pricing_unit",
    "currency": "currency",
    "cost_type": "cost_type",
    "adjustment_type": "adjustment_info.type",
    "adjustment_mode": "adjustment_info.mode",
    "invoice_month": "invoice.month",
    "transaction_type": "transaction_type",
}
# Map columns: output column -> dotted path of its repeated key/value record.
LABEL_FIELDS = {
    "labels": "labels",
    "system_labels": "system_labels",
    "project_labels": "project.labels",
}


def _rate(record: dict[str, Any]) -> Decimal | None:
    rate = _number(record, "currency_conversion_rate")
    if rate is not None and rate <= 0:
        raise BadRow(f"currency_conversion_rate must be positive, got {rate}")
    return None if rate is None else rate.quantize(RATE_PLACES)


def _money_fields(record: dict[str, Any], limits: Limits) -> dict[str, Any]:
    """Cost, credits and list cost in the row's currency, and in USD (cost / rate)."""
    cost = limits.money("cost", _number(record, "cost"))
    if cost is None:
        raise BadRow("cost is missing")
    rate = _rate(record)
    credits = _credits(record)
    for i, credit in enumerate(credits):
        limits.money(f"credits[{i}].amount", credit["amount"])
    credits_total = sum((c["amount"] for c in credits), Decimal(0))
    limits.money("credits (total)", credits_total)
    cost_at_list = money(limits.money("cost_at_list", _number(record, "cost_at_list")))
    for what, amount in (
        ("cost", cost),
        ("credits", credits_total),
        ("cost_at_list", cost_at_list),
    ):
        limits.money(f"{what} in USD", to_usd(amount, rate))  # a tiny rate inflates USD
    return {
        "cost": money(cost),
        "credits_total": money(credits_total),
        "credits": credits,
        "cost_at_list": cost_at_list,
        "currency_conversion_rate": rate,
        "cost_usd": to_usd(cost, rate),
        "credits_total_usd": to_usd(credits_total, rate),
        "cost_at_list_usd": to_usd(cost_at_list, rate),
    }


def _usage_fields(record: dict[str, Any], limits: Limits) -> dict[str, Any]:
    """Usage amounts, what the SKU is (collectors/skus.py) and the accelerator-seconds it
    implies."""
    amount = limits.usage("usage.amount", _number(record, "usage.amount"))
    in_pricing_units = _number(record, "usage.amount_in_pricing_units")
    limits.usage("usage.amount_in_pricing_units", in_pricing_units)
    info = classify_sku(_text(record, "sku.description"), _text(record, "service.description"))
    seconds = accelerator_seconds(info.accelerator_type, amount, _text(record, "usage.unit"))
    limits.accelerator_seconds("usage.amount (accelerator-seconds)", seconds)
    return {
        "usage_amount": money(amount),
        "usage_amount_in_pricing_units": money(in_pricing_units),
        "accelerator_type": info.accelerator_type,
        "accelerator_seconds": money(seconds),
        "pricing_model": info.pricing_model,
        "sku_kind": info.sku_kind,
        "is_commitment_fee": info.is_commitment_fee,
        "commitment_term": info.commitment_term,
        "network_traffic": info.network_traffic,
        "is_egress": info.is_egress,
    }


def normalise(
    record: Any, source: str, line: int, ingested_at: datetime, limits: Limits = DEFAULT_LIMITS
) -> dict[str, Any]:
    """The `billing_line_items` row for one export record, or BadRow with the reason
    (a value past `limits` is a BadRow too)."""
    if not isinstance(record, dict):
        raise BadRow(f"expected a JSON object, got {type(record).__name__}")
    try:
        start, end = _window(record, limits)
        money_fields = _money_fields(record, limits)  # validate first
        usage_fields = _usage_fields(record, limits)
        limits.time("export_time", _time(record, "export_time"))
    except OutOfBounds as exc:
        raise BadRow(str(exc)) from None
    row: dict[str, Any] = {
        "row_id": row_id(record),
        "usage_day": start.date(),
        "usage_start": start,
        "usage_end": end,
        "export_time": _time(record, "export_time"),
        "provider": "gcp",
        **{column: _text(record, path) for column, path in TEXT_FIELDS.items()},
        **money_fields,
        **usage_fields,
        **{column: _labels(record, path) for column, path in LABEL_FIELDS.items()},
        "extra_fields": _extra(record),
        "source": source,
        "source_line": line,
        "ingested_at": ingested_at,
    }
    month = row["invoice_month"]
    if month is not None and not _INVOICE_MONTH.fullmatch(month):
        raise BadRow(f"invoice.month: expected YYYYMM, got {month!r}")
    return row
