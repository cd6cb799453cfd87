"""The dated price book: what each provider charges for each model, from when, and where that
figure was read. It costs the managed usage that arrived without a price.

A CSV with a header row, one price per line (docs/managed-inference.md):

    provider,model,valid_from,currency,input_per_mtok,output_per_mtok,cached_input_per_mtok,
    per_request,per_gpu_hour,source_url,as_of

Prices are per million tokens (input, output, cached input), per request, or per GPU-hour for a
dedicated deployment. `valid_from` is the UTC day the price starts; it holds until the next
row of the same provider and model. `source_url` and `as_of` (the day it was read there) are
required: a price without a source is refused. USD only (the reporting currency).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa

from flopledger.collectors.files import Unreadable, iter_csv
from flopledger.collectors.inference import values as v
from flopledger.collectors.inference.values import BadValue
from flopledger.collectors.quarantine import Quarantined

SOURCE = "managed_inference"
PRICES = (
    "input_per_mtok",
    "output_per_mtok",
    "cached_input_per_mtok",
    "per_request",
    "per_gpu_hour",
)

MANAGED_PRICES_SCHEMA = pa.schema(
    [
        ("provider", pa.string()),
        ("model", pa.string()),
        ("valid_from", pa.date32()),
        ("currency", pa.string()),
        *((name, pa.decimal128(38, 9)) for name in PRICES),
        ("source_url", pa.string()),
        ("as_of", pa.date32()),
        ("source_file", pa.string()),
        ("source_line", pa.int64()),
    ]
)


def _day(name: str, value: Any) -> Any:
    moment = v.timestamp(name, value, required=True)
    assert moment is not None
    if moment.time() != moment.min.time():
        raise BadValue(f"{name} must be a day (YYYY-MM-DD), got {value!r}")
    return moment.date()


def parse_price(record: dict[str, Any]) -> dict[str, Any]:
    """One price-book line as a typed row; BadValue says why it cannot be one."""
    currency = v.text("currency", record.get("currency"), required=True) or ""
    if currency.upper() != "USD":
        raise BadValue(f"currency {currency!r} is not USD (no FX rates applied yet)")
    prices = {name: v.amount(name, record.get(name)) for name in PRICES}
    if all(price is None for price in prices.values()):
        raise BadValue("no price given (input/output per Mtok, per request or per GPU-hour)")
    if (prices["input_per_mtok"] is None) != (prices["output_per_mtok"] is None):
        raise BadValue("input_per_mtok and output_per_mtok go together")
    source_url = v.text("source_url", record.get("source_url"), required=True) or ""
    if not source_url.startswith(("https://", "http://")):
        raise BadValue(f"source_url must be an http(s) URL, got {source_url!r}")
    return {
        "provider": v.text("provider", record.get("provider"), required=True),
        "model": v.text("model", record.get("model"), required=True),
        "valid_from": _day("valid_from", record.get("valid_from")),
        "currency": "USD",
        **prices,
        "source_url": source_url,
        "as_of": _day("as_of", record.get("as_of")),
    }


def read_price_book(path: Path | None) -> tuple[pa.Table, list[Quarantined]]:
    """Every price of the book (one per provider, model and valid_from) and the lines refused."""
    rows: dict[tuple, dict[str, Any]] = {}
    bad: list[Quarantined] = []
    if path is None:
        return pa.Table.from_pylist([], schema=MANAGED_PRICES_SCHEMA), bad
    if not path.is_file():
        bad.append(Quarantined(SOURCE, str(path), None, "price book not found", ""))
        return pa.Table.from_pylist([], schema=MANAGED_PRICES_SCHEMA), bad
    for line, record, raw in iter_csv(path):
        try:
            if isinstance(record, Unreadable):
                raise BadValue(str(record))
            row = parse_price(record)
        except BadValue as exc:
            bad.append(Quarantined(SOURCE, str(path), line, str(exc), raw))
            continue
        key = (row["provider"], row["model"], row["valid_from"])
        if key in rows:
            bad.append(
                Quarantined(
                    SOURCE,
                    str(path),
                    line,
                    "a second price for the same provider, model and valid_from",
                    raw,
                )
            )
            continue
        rows[key] = {**row, "source_file": str(path), "source_line": line}
    return pa.Table.from_pylist(list(rows.values()), schema=MANAGED_PRICES_SCHEMA), bad
