"""Budget periods: calendar months, quarters, and weeks that start on a chosen weekday (UTC days)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from flopledger.budgets.budget_file import WEEKDAYS


@dataclass(frozen=True)
class Period:
    kind: str
    start: date  # first day
    end: date  # first day after the period

    @property
    def last_day(self) -> date:
        return self.end - timedelta(days=1)

    @property
    def days(self) -> int:
        return (self.end - self.start).days

    @property
    def key(self) -> str:
        """Stable name: 2026-10 (month), 2026-Q4 (quarter), 2026-10-05 (week starting that day)."""
        if self.kind == "month":
            return f"{self.start:%Y-%m}"
        if self.kind == "quarter":
            return f"{self.start.year}-Q{(self.start.month - 1) // 3 + 1}"
        return self.start.isoformat()


def _month_start(year: int, month: int) -> date:
    """The first day of a month, with month counted past 12 into following years."""
    return date(year + (month - 1) // 12, (month - 1) % 12 + 1, 1)


def period_containing(kind: str, day: date, week_start: str = "monday") -> Period:
    if kind == "month":
        return Period(kind, day.replace(day=1), _month_start(day.year, day.month + 1))
    if kind == "quarter":
        first = (day.month - 1) // 3 * 3 + 1
        return Period(kind, date(day.year, first, 1), _month_start(day.year, first + 3))
    if kind == "week":
        back = (day.weekday() - WEEKDAYS.index(week_start)) % 7
        start = day - timedelta(days=back)
        return Period(kind, start, start + timedelta(days=7))
    raise ValueError(f"unknown period {kind!r}")


def periods_between(kind: str, first: date, last: date, week_start: str = "monday") -> list[Period]:
    """Every period that overlaps [first, last], in order."""
    periods = [period_containing(kind, first, week_start)]
    while periods[-1].end <= last:
        periods.append(period_containing(kind, periods[-1].end, week_start))
    return periods
