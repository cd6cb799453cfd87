"""The figures "Spend to date" and "Forecast" (figures/__init__.py): a run-rate forecast to the
end of a period, the one method budgets (budget_status, its alerts) and the Overview's month
forecast use. Kept in Python beside the figures table because both callers hand it a daily
spend series: a budget its scope's, the Overview its filters'.

Method (docs/budgets.md): the run rate is the mean daily spend over the last
`window_days` complete UTC days before the as-of day, counting only days on or after
the first day the warehouse has data for, rounded half-even to the nano-dollar. The window
may reach back before the period starts, so a partial first week (or month) is forecast from
the days just before it. The forecast is the period's spend on complete days plus the run rate
times the days left (the as-of day included), and never less than the spend to date. A closed
period's forecast is its spend.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Protocol

NANO = Decimal("0.000000001")
DEFAULT_WINDOW_DAYS = 7  # budgets.yaml's forecast_window_days unless it says otherwise
ZERO = Decimal(0)


class Period(Protocol):
    """A span of UTC days: a budget's period (budgets/periods.py), or a calendar month."""

    @property
    def start(self) -> date: ...  # first day

    @property
    def end(self) -> date: ...  # first day after

    @property
    def last_day(self) -> date: ...


@dataclass(frozen=True)
class Month:
    """The calendar month of a day, as a Period."""

    start: date
    end: date

    @classmethod
    def of(cls, day: date) -> Month:
        first = day.replace(day=1)
        return cls(first, (first + timedelta(days=32)).replace(day=1))

    @property
    def last_day(self) -> date:
        return self.end - timedelta(days=1)


@dataclass(frozen=True)
class Forecast:
    spend_to_date: Decimal
    run_rate: Decimal  # per day
    rate_days: int  # complete days behind the run rate
    forecast: Decimal


def _window(as_of_day: date, window_days: int, first_data_day: date | None) -> list[date]:
    days = [as_of_day - timedelta(days=n) for n in range(window_days, 0, -1)]
    return [d for d in days if first_data_day is not None and d >= first_data_day]


def forecast_period(
    spend: Mapping[date, Decimal],
    period: Period,
    as_of_day: date,
    window_days: int,
    first_data_day: date | None,
) -> Forecast:
    """`spend` is the scope's effective cost per UTC day; days absent spent nothing."""
    in_period = [d for d in spend if period.start <= d <= min(period.last_day, as_of_day)]
    to_date = sum((spend[d] for d in in_period), ZERO)
    if as_of_day > period.last_day:
        return Forecast(to_date, ZERO, 0, to_date)
    days = _window(as_of_day, window_days, first_data_day)
    rate = (
        (sum((spend.get(d, ZERO) for d in days), ZERO) / len(days)).quantize(NANO, ROUND_HALF_EVEN)
        if days
        else ZERO
    )
    complete = sum((spend[d] for d in in_period if d < as_of_day), ZERO)
    left = (period.end - max(as_of_day, period.start)).days
    return Forecast(to_date, rate, len(days), max(complete + rate * left, to_date))
