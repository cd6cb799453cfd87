"""FOCUS 1.0, 1.1 and 1.2 cost and usage files (CSV or Parquet) into `focus_line_items` rows.

The same time rules as the GCP export: every time is UTC (a timestamp written without `T` or
`Z`, as the FinOps sample does, is read as UTC); a row read twice (the same file listed twice,
an overlapping re-export) is one row; a row outside the plausible window is quarantined.

Nulls are written three ways in the wild: an empty cell, the text `NULL` or `null` (the public
sample, the specification's examples), a Parquet null. All are null here. A FOCUS column whose
name is written in another case (`SkuPriceid` in the specification's examples) is read as that
column, and flagged. A file naming a column twice (alike, or one FOCUS column in two cases) is
refused whole, one quarantine row saying which: which of the two a row means cannot be told.
A column FOCUS does not name (an `x_` column, one a later FOCUS version adds) is kept, in
`x_columns`.

A row that breaks the specification loads where its meaning is clear, with the reason in
`spec_issues` (an enumerated value in the wrong case, a mandatory cost left null, a usage row
without a PricingCategory); a row whose meaning is not clear (no ProviderName, no BilledCost,
an unknown ChargeCategory, a charge period that ends before it starts) is quarantined.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa

from flopledger.accelerators.instances import match_instance
from flopledger.collectors.files import Unreadable, iter_records, raw_text
from flopledger.collectors.limits import DEFAULT_LIMITS, Limits, OutOfBounds
from flopledger.collectors.money import WIDE, BadNumber, to_decimal
from flopledger.collectors.quarantine import Quarantined
from flopledger.collectors.timeparse import BadTimestamp, parse_timestamp

SOURCE = "focus"
MONEY_PLACES = 12  # DECIMAL(38, 12): the public sample carries 11
QUANTITY_PLACES = 15  # its ConsumedQuantity carries 15
MONEY = pa.decimal128(38, MONEY_PLACES)
QUANTITY = pa.decimal128(38, QUANTITY_PLACES)

# FOCUS column -> (kind, the version that added it). Kinds: text, money, quantity, time, json.
COLUMNS: dict[str, tuple[str, str]] = {
    "AvailabilityZone": ("text", "1.0"),
    "BilledCost": ("money", "1.0"),
    "BillingAccountId": ("text", "1.0"),
    "BillingAccountName": ("text", "1.0"),
    "BillingAccountType": ("text", "1.2"),
    "BillingCurrency": ("text", "1.0"),
    "BillingPeriodEnd": ("time", "1.0"),
    "BillingPeriodStart": ("time", "1.0"),
    "CapacityReservationId": ("text", "1.1"),
    "CapacityReservationStatus": ("text", "1.1"),
    "ChargeCategory": ("text", "1.0"),
    "ChargeClass": ("text", "1.0"),
    "ChargeDescription": ("text", "1.0"),
    "ChargeFrequency": ("text", "1.0"),
    "ChargePeriodEnd": ("time", "1.0"),
    "ChargePeriodStart": ("time", "1.0"),
    "CommitmentDiscountCategory": ("text", "1.0"),
    "CommitmentDiscountId": ("text", "1.0"),
    "CommitmentDiscountName": ("text", "1.0"),
    "CommitmentDiscountQuantity": ("quantity", "1.1"),
    "CommitmentDiscountStatus": ("text", "1.0"),
    "CommitmentDiscountType": ("text", "1.0"),
    "CommitmentDiscountUnit": ("text", "1.1"),
    "ConsumedQuantity": ("quantity", "1.0"),
    "ConsumedUnit": ("text", "1.0"),
    "ContractedCost": ("money", "1.0"),
    "ContractedUnitPrice": ("money", "1.0"),
    "EffectiveCost": ("money", "1.0"),
    "InvoiceId": ("text", "1.2"),
    "InvoiceIssuerName": ("text", "1.0"),
    "ListCost": ("money", "1.0"),
    "ListUnitPrice": ("money", "1.0"),
    "PricingCategory": ("text", "1.0"),
    "PricingCurrency": ("text", "1.2"),
    "PricingCurrencyContractedUnitPrice": ("money", "1.2"),
    "PricingCurrencyEffectiveCost": ("money", "1.2"),
    "PricingCurrencyListUnitPrice": ("money", "1.2"),
    "PricingQuantity": ("quantity", "1.0"),
    "PricingUnit": ("text", "1.0"),
    "ProviderName": ("text", "1.0"),
    "PublisherName": ("text", "1.0"),
    "RegionId": ("text", "1.0"),
    "RegionName": ("text", "1.0"),
    "ResourceId": ("text", "1.0"),
    "ResourceName": ("text", "1.0"),
    "ResourceType": ("text", "1.0"),
    "ServiceCategory": ("text", "1.0"),
    "ServiceName": ("text", "1.0"),
    "ServiceSubcategory": ("text", "1.1"),
    "SkuId": ("text", "1.0"),
    "SkuMeter": ("text", "1.1"),
    "SkuPriceDetails": ("json", "1.1"),
    "SkuPriceId": ("text", "1.0"),
    "SubAccountId": ("text", "1.0"),
    "SubAccountName": ("text", "1.0"),
    "SubAccountType": ("text", "1.2"),
    "Tags": ("json", "1.0"),
}

# Allowed values of the enumerated columns (FOCUS 1.2, which holds 1.0's and 1.1's).
ALLOWED = {
    "ChargeCategory": ("Usage", "Purchase", "Tax", "Credit", "Adjustment"),
    "ChargeClass": ("Correction",),
    "ChargeFrequency": ("One-Time", "Recurring", "Usage-Based"),
    "PricingCategory": ("Standard", "Dynamic", "Committed", "Other"),
    "CommitmentDiscountCategory": ("Spend", "Usage"),
    "CommitmentDiscountStatus": ("Used", "Unused"),
    "CapacityReservationStatus": ("Used", "Unused"),
}
# Without these a row means nothing: quarantined.
REQUIRED = ("ProviderName", "ChargeCategory", "ChargePeriodStart", "ChargePeriodEnd", "BilledCost")
# Mandatory in every version, but a row reads clearly without them: flagged.
MANDATORY_COSTS = ("EffectiveCost", "ListCost", "ContractedCost")
NULL_TEXT = "NULL"
REPORTING_CURRENCY = "USD"  # settings: reporting_currency is USD only


def snake(name: str) -> str:
    """`ChargePeriodStart` -> `charge_period_start` (the raw table's column names)."""
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i and not name[i - 1].isupper():
            out.append("_")
        out.append(ch.lower())
    return "".join(out)


def _arrow_type(kind: str) -> pa.DataType:
    return {"money": MONEY, "quantity": QUANTITY, "time": pa.timestamp("us")}.get(kind, pa.string())


FOCUS_SCHEMA = pa.schema(
    [
        ("line_item_id", pa.string()),
        ("charge_day", pa.date32()),
        *[(snake(name), _arrow_type(kind)) for name, (kind, _) in COLUMNS.items()],
        ("x_columns", pa.string()),
        ("instance_type", pa.string()),
        ("accelerator_type", pa.string()),
        ("accelerator_count", pa.int64()),
        ("focus_version", pa.string()),
        ("spec_issues", pa.string()),
        ("source_file", pa.string()),
        ("source_line", pa.int64()),
    ]
)


@dataclass
class FocusRead:
    """What a read found: the rows, the refused rows, and the duplicates dropped."""

    table: pa.Table
    quarantined: list[Quarantined] = field(default_factory=list)
    duplicates: int = 0


class Refused(ValueError):
    """A row whose meaning is not clear; the message is the quarantine reason."""


def _null(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, str) and value.strip().upper() in ("", NULL_TEXT):
        return None
    return value


def _text(value: Any) -> str | None:
    value = _null(value)
    if value is None:
        return None
    if isinstance(value, (dict, list)):
        return json.dumps(value, default=str, sort_keys=True)
    return str(value)


def _json_text(name: str, value: Any, issues: list[str]) -> str | None:
    """Tags and SkuPriceDetails as JSON text: a Parquet map (list of pairs) becomes an object."""
    value = _null(value)
    if value is None:
        return None
    if isinstance(value, list) and all(isinstance(p, (tuple, list)) and len(p) == 2 for p in value):
        value = {str(k): v for k, v in value}
    if isinstance(value, (dict, list)):
        return json.dumps(value, default=str, sort_keys=True)
    text = str(value)
    try:
        json.loads(text)
    except ValueError:
        # Kept as a JSON string holding the text as written: the column stays JSON, so the marts
        # that read a tag from it (spend_daily's team) find none instead of failing the run.
        issues.append(f"{name} is not JSON (kept as a JSON string)")
        return json.dumps(text)
    return text


def _exact(name: str, value: Any, places: int, issues: list[str]) -> Decimal | None:
    try:
        amount = to_decimal(_null(value))
    except BadNumber as exc:
        raise Refused(f"{name}: {exc}") from None
    if amount is None:
        return None
    # Before rounding: 1e400 has no form with `places` decimals (InvalidOperation).
    if abs(amount) >= Decimal(10) ** (38 - places):
        raise Refused(f"{name}: {amount} does not fit DECIMAL(38, {places})")
    quantum = Decimal(1).scaleb(-places)
    rounded = amount.quantize(quantum, rounding=ROUND_HALF_EVEN, context=WIDE)
    if rounded != amount:
        issues.append(f"{name} rounded to {places} places")
    if abs(rounded) >= Decimal(10) ** (38 - places):  # 99...9.9999999999 rounds up past it
        raise Refused(f"{name}: {amount} does not fit DECIMAL(38, {places})")
    return rounded


def _time(name: str, value: Any, limits: Limits) -> datetime | None:
    try:
        moment = parse_timestamp(_null(value))
    except BadTimestamp as exc:
        raise Refused(f"{name}: {exc}") from None
    try:
        return limits.time(name, moment)
    except OutOfBounds as exc:
        raise Refused(str(exc)) from None


def _enumerated(name: str, value: str | None, issues: list[str]) -> str | None:
    if value is None or name not in ALLOWED:
        return value
    if value in ALLOWED[name]:
        return value
    for allowed in ALLOWED[name]:
        if allowed.lower() == value.strip().lower():
            issues.append(f"{name} {value!r} read as {allowed!r}")
            return allowed
    if name == "ChargeCategory":
        raise Refused(f"ChargeCategory {value!r} is not one of {', '.join(ALLOWED[name])}")
    issues.append(f"{name} {value!r} is not an allowed value (kept as written)")
    return value


_BY_LOWER = {name.lower(): name for name in COLUMNS}


def _canonical_names(record: dict[str, Any], issues: list[str]) -> dict[str, Any]:
    """FOCUS columns named in another case under their own names; other columns as written."""
    out: dict[str, Any] = {}
    for key, value in record.items():
        name = _BY_LOWER.get(key.lower(), key) if isinstance(key, str) else key
        if name != key:
            issues.append(f"column {key!r} read as {name!r}")
        out[name] = value
    return out


def _named_twice(columns: Iterable[Any]) -> str | None:
    """Why a file naming one FOCUS column twice in different cases (`BilledCost` and
    `billedcost`, both read as BilledCost) is refused whole, or None. (A name written twice
    alike is refused by collectors/files.py.)"""
    written: dict[str, list[str]] = {}
    for name in columns:
        if isinstance(name, str) and name.lower() in _BY_LOWER:
            written.setdefault(_BY_LOWER[name.lower()], []).append(name)
    twice = [
        f"{' and '.join(map(repr, names))} are both {column}"
        for column, names in written.items()
        if len(names) > 1
    ]
    if not twice:
        return None
    return (
        f"duplicate column name: {'; '.join(twice)} (a FOCUS name is read in any case): "
        "the file is refused whole"
    )


def _version(columns: Iterable[str]) -> str:
    names = {_BY_LOWER.get(str(c).lower()) for c in columns}
    added = {COLUMNS[n][1] for n in names if n is not None}
    return max(added) if added else "1.0"


def _line_item_id(record: dict[str, Any]) -> str:
    """Stable over rereads: the provider and every value the row carries, in column order."""
    values = {k: _text(v) for k, v in sorted(record.items())}
    return hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()[:32]


# fx_rates (settings' fx_rates file, as budgets/fx.py reads it): currency -> [(day, units per
# USD)], sorted by day.
FxRates = dict[str, list[tuple[date, Decimal]]]
_BILLING_MONEY = ("BilledCost", "EffectiveCost", "ListCost", "ContractedCost", "ListUnitPrice",
                  "ContractedUnitPrice")  # fmt: skip


def _to_usd(row: dict[str, Any], fx: FxRates, day: date) -> dict[str, str]:
    """The row's billing-currency money in USD with the latest fx_rates rate on or before its
    day (USD = amount / rate, 12 places half-even); Refused when no rate covers it. Returns
    the original currency and amounts (kept in x_columns)."""
    currency = row["billing_currency"]
    series = [(d, r) for d, r in fx.get(currency, []) if d <= day]
    if not series:
        raise Refused(
            f"BillingCurrency {currency!r}: no fx_rates rate for {currency} on or before {day}"
            f" (add a row {day},{currency},<units per USD> to the fx_rates file)"
        )
    rate = series[-1][1]
    original = {"x_original_billing_currency": currency, "x_fx_rate_per_usd": str(rate)}
    for name in _BILLING_MONEY:
        amount = row[snake(name)]
        if amount is not None:
            original[f"x_original_{snake(name)}"] = str(amount)
            row[snake(name)] = (amount / rate).quantize(
                Decimal(1).scaleb(-MONEY_PLACES), ROUND_HALF_EVEN
            )
    row["billing_currency"] = REPORTING_CURRENCY
    return original


def focus_row(
    record: dict[str, Any],
    version: str,
    file: str,
    line: int | None,
    limits: Limits,
    fx: FxRates | None = None,
) -> dict[str, Any]:
    """One FOCUS record as a `focus_line_items` row; Refused when its meaning is not clear.
    Money in another currency than USD is converted with `fx` (the fx_rates file)."""
    issues: list[str] = []
    record = _canonical_names(record, issues)
    for name in REQUIRED:
        if _null(record.get(name)) is None:
            raise Refused(f"{name} is null (mandatory; the row cannot be placed or costed)")
    row: dict[str, Any] = {}
    for name, (kind, _) in COLUMNS.items():
        value = record.get(name)
        if kind == "money":
            amount = _exact(name, value, MONEY_PLACES, issues)
            try:
                row[snake(name)] = limits.money(name, amount)
            except OutOfBounds as exc:
                raise Refused(str(exc)) from None
        elif kind == "quantity":
            row[snake(name)] = _exact(name, value, QUANTITY_PLACES, issues)
        elif kind == "time":
            row[snake(name)] = _time(name, value, limits)
        elif kind == "json":
            row[snake(name)] = _json_text(name, value, issues)
        else:
            row[snake(name)] = _enumerated(name, _text(value), issues)
    start, end = row["charge_period_start"], row["charge_period_end"]
    if end <= start:
        raise Refused(f"ChargePeriodEnd {end} is not after ChargePeriodStart {start}")
    try:
        limits.span("charge period", start, end)
    except OutOfBounds as exc:
        raise Refused(str(exc)) from None
    for name in MANDATORY_COSTS:
        if row[snake(name)] is None:
            issues.append(f"{name} is null (mandatory)")
    if row["billing_currency"] is None:
        raise Refused("BillingCurrency is null (the costs cannot be converted)")
    converted: dict[str, str] = {}
    if row["billing_currency"] != REPORTING_CURRENCY:
        if not fx:
            raise Refused(
                f"BillingCurrency {row['billing_currency']!r}: FOCUS carries no rate to USD, the"
                " reporting currency, and no fx_rates file is configured"
            )
        converted = _to_usd(row, fx, start.date())
    category = row["charge_category"]
    if (
        category in ("Usage", "Purchase")
        and row["pricing_category"] is None
        and row["charge_class"] != "Correction"
    ):
        issues.append(f"PricingCategory is null on a {row['charge_category']} row")
    extras = {k: _text(v) for k, v in record.items() if k not in COLUMNS and k}
    gpu = match_instance(
        row["charge_description"],
        row["sku_meter"],
        row["sku_price_details"],
        row["resource_type"],
        row["sku_id"],
        *extras.values(),
    )
    if gpu is not None:
        _check_accelerator_seconds(row, gpu.accelerator_count, limits)
    extras |= converted  # the original currency and amounts of a converted row
    row |= {
        "instance_type": gpu and gpu.instance_type,
        "accelerator_type": gpu and gpu.accelerator_type,
        "accelerator_count": gpu and gpu.accelerator_count,
        "line_item_id": _line_item_id(record),
        "charge_day": start.date(),
        "x_columns": json.dumps(extras, sort_keys=True) if extras else None,
        "focus_version": version,
        "spec_issues": "; ".join(issues) or None,
        "source_file": file,
        "source_line": line,
    }
    return row


_HOURS = re.compile(r"(?i)hrs?|hours?")


def _check_accelerator_seconds(row: dict[str, Any], accelerators: int, limits: Limits) -> None:
    """A GPU instance row's accelerator-seconds (billing_hourly's paid: accelerators x
    ConsumedQuantity x 3,600 when ConsumedUnit is hours, else x the charge period) within
    limits.max_accelerator_seconds, as for Google's rows: past it, the row is refused."""
    quantity, unit = row["consumed_quantity"], row["consumed_unit"] or ""
    if quantity is not None and _HOURS.fullmatch(unit):
        seconds = quantity * 3600
    else:
        seconds = Decimal((row["charge_period_end"] - row["charge_period_start"]).total_seconds())
    try:
        limits.accelerator_seconds(
            "accelerator-seconds", (accelerators * seconds).to_integral_value()
        )
    except OutOfBounds as exc:
        raise Refused(str(exc)) from None


def read_focus_files(
    paths: Iterable[Path],
    limits: Limits = DEFAULT_LIMITS,
    defaults: dict[str, str] | None = None,
    fx: FxRates | None = None,
) -> FocusRead:
    """Every FOCUS row of `paths` (CSV or Parquet, by suffix): good rows, refused rows, and
    how many rows were the same row again. `defaults` fills columns a file lacks entirely
    (the specification's worked examples carry no ProviderName or BillingCurrency), never a
    null cell of a column it has."""
    rows: list[dict[str, Any]] = []
    bad: list[Quarantined] = []
    seen: set[str] = set()
    duplicates = 0
    for path in paths:
        version: str | None = None
        for line, record, raw in iter_records(Path(path)):
            if isinstance(record, Unreadable):
                bad.append(Quarantined(SOURCE, str(path), line, str(record), raw))
                continue
            if not isinstance(record, dict):
                bad.append(Quarantined(SOURCE, str(path), line, "not a FOCUS row", raw))
                continue
            twice = None if version else _named_twice(record)  # (the header: the first row's)
            if twice:
                header = ",".join(str(name) for name in record)
                bad.append(Quarantined(SOURCE, str(path), None, twice, header))
                break
            version = version or _version(record)
            if defaults:
                record = {k: v for k, v in defaults.items() if k not in record} | record
            try:
                row = focus_row(record, version, str(path), line, limits, fx)
            except Refused as exc:
                bad.append(Quarantined(SOURCE, str(path), line, str(exc), raw_text(record, raw)))
                continue
            if row["line_item_id"] in seen:
                duplicates += 1
                continue
            seen.add(row["line_item_id"])
            rows.append(row)
    table = pa.Table.from_pylist(rows, schema=FOCUS_SCHEMA)
    return FocusRead(table, bad, duplicates)
