"""The accelerator price book: on-demand and committed prices per accelerator-hour.

`prices.csv` beside this file ships the prices the simulator bills at
(simulator/prices.py). A book named by `price_book` in flopledger.yaml overrides it row by row
(same accelerator type and region); for one type and region the row with the latest `as_of`
counts. Money is Decimal. A bad book is one clear error naming the file and line.
"""

from __future__ import annotations

import csv
from datetime import date
from decimal import ROUND_DOWN, Decimal, InvalidOperation
from pathlib import Path
from typing import NamedTuple

SHIPPED = Path(__file__).with_name("prices.csv")
COLUMNS = (
    "accelerator_type",
    "region",
    "currency",
    "on_demand_per_hour",
    "commit_1y_per_hour",
    "commit_3y_per_hour",
    "source",
    "as_of",
)
PLACES = Decimal("0.000000000001")  # commitment_plan keeps prices as DECIMAL(38, 12)
TERMS = {"1y": "commit_1y_per_hour", "3y": "commit_3y_per_hour"}


class PriceBookError(ValueError):
    """A price book that cannot be read; the message names the file and line."""


class AcceleratorPrice(NamedTuple):
    accelerator_type: str
    region: str
    currency: str
    on_demand_per_hour: Decimal
    commit_1y_per_hour: Decimal
    commit_3y_per_hour: Decimal
    source: str
    as_of: date
    book: str  # the file it came from

    def committed(self, term: str) -> Decimal:
        if term not in TERMS:
            raise PriceBookError(f"term must be one of {', '.join(TERMS)} (got {term!r})")
        return Decimal(getattr(self, TERMS[term]))


def _money(where: str, key: str, text: str) -> Decimal:
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise PriceBookError(f"{where}: {key} is not a number (got {text!r})") from None
    if not value.is_finite() or value < 0:
        raise PriceBookError(f"{where}: {key} must be a finite number >= 0 (got {text!r})")
    if value != value.quantize(PLACES, rounding=ROUND_DOWN) or value >= 10**12:
        raise PriceBookError(
            f"{where}: {key} must be below 1e12 with at most 12 decimal places (got {text!r})"
        )
    return value


def _row(where: str, book: str, raw: dict[str, str]) -> AcceleratorPrice:
    missing = [c for c in COLUMNS if not (raw.get(c) or "").strip() and c != "source"]
    if missing:
        raise PriceBookError(f"{where}: {', '.join(missing)} empty")
    try:
        as_of = date.fromisoformat(raw["as_of"].strip())
    except ValueError:
        raise PriceBookError(f"{where}: as_of is not a date (got {raw['as_of']!r})") from None
    currency = raw["currency"].strip()
    if currency != "USD":
        raise PriceBookError(
            f"{where}: currency must be USD, the reporting currency (got {currency!r})"
        )
    on_demand = _money(where, "on_demand_per_hour", raw["on_demand_per_hour"].strip())
    if on_demand == 0:
        raise PriceBookError(f"{where}: on_demand_per_hour must be above 0")
    return AcceleratorPrice(
        raw["accelerator_type"].strip(),
        raw["region"].strip(),
        currency,
        on_demand,
        _money(where, "commit_1y_per_hour", raw["commit_1y_per_hour"].strip()),
        _money(where, "commit_3y_per_hour", raw["commit_3y_per_hour"].strip()),
        (raw.get("source") or "").strip(),
        as_of,
        book,
    )


def read_book(path: Path) -> dict[tuple[str, str], AcceleratorPrice]:
    """One book: (accelerator type, region) -> its latest-dated price."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise PriceBookError(f"{path}: cannot be read ({exc.__class__.__name__})") from None
    reader = csv.DictReader(text.splitlines())
    absent = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
    if absent:
        raise PriceBookError(f"{path}: missing columns {', '.join(absent)}")
    prices: dict[tuple[str, str], AcceleratorPrice] = {}
    for line, raw in enumerate(reader, start=2):
        if None in raw or None in raw.values():
            raise PriceBookError(f"{path}:{line}: wrong number of fields")
        row = _row(f"{path}:{line}", str(path), raw)
        key = (row.accelerator_type, row.region)
        seen = prices.get(key)
        if seen is not None and seen.as_of == row.as_of:
            raise PriceBookError(f"{path}:{line}: {key[0]} in {key[1]} twice for {row.as_of}")
        if seen is None or row.as_of > seen.as_of:
            prices[key] = row
    return prices


def price_book(override: str | Path | None = None) -> dict[tuple[str, str], AcceleratorPrice]:
    """The shipped book, with the rows of `override` (flopledger.yaml's price_book) on top."""
    prices = read_book(SHIPPED)
    if override is not None:
        prices.update(read_book(Path(override)))
    return prices
