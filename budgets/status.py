"""budget_status rows: per budget and period, spend to date, forecast, percent used, thresholds."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import date, datetime
from decimal import Decimal

import pyarrow as pa

from flopledger.budgets.budget_file import Budget
from flopledger.budgets.fx import Rates, rate_on, to_usd
from flopledger.budgets.periods import Period, period_containing, periods_between
from flopledger.figures.forecast import forecast_period

MONEY = pa.decimal128(38, 9)


@dataclass(frozen=True)
class Status:
    budget: str
    period_kind: str
    period_key: str
    period_start: date
    period_end: date  # last day, inclusive
    is_current: bool
    as_of: datetime
    scope: str
    basis: str
    currency: str
    amount: Decimal
    fx_rate: Decimal
    amount_usd: Decimal
    spend_to_date: Decimal
    run_rate_per_day: Decimal
    run_rate_days: int
    forecast: Decimal
    percent_used: float
    forecast_percent: float
    thresholds: list[float]
    thresholds_crossed: list[float]
    over_budget: bool
    forecast_overrun: bool
    forecast_alerts: bool
    channels: list[str]


def _pct(part: Decimal, whole: Decimal) -> float:
    return float(part / whole * 100)


def period_status(
    budget: Budget,
    period: Period,
    spend: Mapping[date, Decimal],
    as_of: datetime,
    first_data_day: date | None,
    window_days: int,
    rates: Rates,
    current: bool,
) -> Status:
    rate = rate_on(rates, budget.currency, period.start)
    amount_usd = to_usd(budget.amount, rate)
    f = forecast_period(spend, period, as_of.date(), window_days, first_data_day)
    used = _pct(f.spend_to_date, amount_usd)
    return Status(
        budget.name,
        period.kind,
        period.key,
        period.start,
        period.last_day,
        current,
        as_of,
        budget.scope.describe(),
        budget.scope.basis,
        budget.currency,
        budget.amount,
        rate,
        amount_usd,
        f.spend_to_date,
        f.run_rate,
        f.rate_days,
        f.forecast,
        used,
        _pct(f.forecast, amount_usd),
        list(budget.thresholds),
        [t for t in budget.thresholds if used >= t],
        f.spend_to_date >= amount_usd,
        f.forecast > amount_usd,
        budget.forecast_alerts,
        list(budget.channels),
    )


def budget_statuses(
    budget: Budget,
    spend: Mapping[date, Decimal],
    as_of: datetime,
    first_data_day: date | None,
    window_days: int,
    rates: Rates,
) -> list[Status]:
    """One Status per period from the first day with data (or the current period) to the as-of day."""
    first = min(first_data_day or as_of.date(), as_of.date())
    periods = periods_between(budget.period, first, as_of.date(), budget.week_start)
    current = period_containing(budget.period, as_of.date(), budget.week_start)
    return [
        period_status(budget, p, spend, as_of, first_data_day, window_days, rates, p == current)
        for p in periods
    ]


SCHEMA = pa.schema(
    [
        ("budget", pa.string()),
        ("period_kind", pa.string()),
        ("period_key", pa.string()),
        ("period_start", pa.date32()),
        ("period_end", pa.date32()),
        ("is_current", pa.bool_()),
        ("as_of", pa.timestamp("us")),
        ("scope", pa.string()),
        ("basis", pa.string()),
        ("currency", pa.string()),
        ("amount", MONEY),
        ("fx_rate", pa.decimal128(38, 18)),
        ("amount_usd", MONEY),
        ("spend_to_date", MONEY),
        ("run_rate_per_day", MONEY),
        ("run_rate_days", pa.int32()),
        ("forecast", MONEY),
        ("percent_used", pa.float64()),
        ("forecast_percent", pa.float64()),
        ("thresholds", pa.list_(pa.float64())),
        ("thresholds_crossed", pa.list_(pa.float64())),
        ("over_budget", pa.bool_()),
        ("forecast_overrun", pa.bool_()),
        ("forecast_alerts", pa.bool_()),
        ("channels", pa.list_(pa.string())),
    ]
)


def to_arrow(statuses: list[Status]) -> pa.Table:
    return pa.Table.from_pylist([asdict(s) for s in statuses], schema=SCHEMA)


def from_rows(rows: list[dict]) -> list[Status]:
    return [Status(**{k: r[k] for k in SCHEMA.names}) for r in rows]
