"""Budget amounts in other currencies, converted to USD with the `fx_rates` CSV.

The file has a header `date,currency,rate`: `rate` is units of `currency` per 1 USD on that
UTC day (the direction of the billing export's currency_conversion_rate), so
USD = amount / rate. A budget uses the latest rate on or before its period's first day
(else the earliest rate there is), so its USD amount is fixed for the whole period.
"""

from __future__ import annotations

import csv
from bisect import bisect_right
from datetime import date
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from pathlib import Path

from flopledger.budgets.budget_file import BudgetConfigError
from flopledger.collectors.files import duplicate_columns

NANO = Decimal("0.000000001")
Rates = dict[str, list[tuple[date, Decimal]]]


def _row(path: Path, line: int, row: dict[str, str]) -> tuple[str, date, Decimal]:
    try:
        day = date.fromisoformat(row["date"].strip())
        rate = Decimal(row["rate"].strip())
    except (KeyError, ValueError, InvalidOperation, AttributeError):
        raise BudgetConfigError(
            f"{path}:{line}: expected date (YYYY-MM-DD), currency, rate"
        ) from None
    if rate <= 0:
        raise BudgetConfigError(f"{path}:{line}: rate must be above 0 (got {rate})")
    return row["currency"].strip().upper(), day, rate


def load_fx_rates(path: str | Path | None) -> Rates:
    """currency -> [(day, rate per USD)] sorted by day; an empty dict when no file is configured."""
    if path is None:
        return {}
    path = Path(path)
    rates: Rates = {}
    with path.open(newline="") as fh:
        reader = csv.DictReader(fh)
        if reader.fieldnames is None or not {"date", "currency", "rate"} <= set(reader.fieldnames):
            raise BudgetConfigError(f"{path}: expected a header date,currency,rate")
        twice = duplicate_columns(reader.fieldnames)  # two `rate`s: which converts is unknown
        if twice:
            raise BudgetConfigError(f"{path}: {twice}")
        for line, row in enumerate(reader, start=2):
            currency, day, rate = _row(path, line, row)
            rates.setdefault(currency, []).append((day, rate))
    return {c: sorted(v) for c, v in rates.items()}


def rate_on(rates: Rates, currency: str, day: date) -> Decimal:
    """Units of `currency` per USD on `day` (1 for USD)."""
    if currency == "USD":
        return Decimal(1)
    series = rates.get(currency)
    if not series:
        raise BudgetConfigError(f"fx_rates: no rate for {currency} (add rows date,{currency},rate)")
    i = bisect_right([d for d, _ in series], day)
    return series[max(i - 1, 0)][1]


def to_usd(amount: Decimal, rate: Decimal) -> Decimal:
    return (amount / rate).quantize(NANO, rounding=ROUND_HALF_EVEN)
