"""Which closed months a run changed, so that history never moves unseen.

A month is closed once its report is due (`closes_at`: `month_report.settle_days` after its
end). Every marts run compares the figures each month it rebuilt is watched by (every team's
chargeback and the month's effective cost) with those the last run stored
(pipelines/marts/closed_months.py); any that differ in a closed month are said in the run's
report and stored in `closed_month_changes` with the cause (a late billing row, or `flopledger
restate`), which the month close's next revision gives as its reason (reports/month.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from flopledger.reports.month import closes_at

Rows = list[dict[str, Any]]
Totals = dict[tuple[date, str], Decimal]
LATE_ROWS = "run: rows arrived for a closed month (late billing rows or a restated day)"


@dataclass(frozen=True)
class MonthChange:
    month: date
    figure: str
    before: Decimal | None
    after: Decimal | None


def closed_changes(
    before: Totals, after: Totals, now: datetime, settle_days: int
) -> list[MonthChange]:
    """The figures of closed months that differ between `before` and `after` (months that
    had figures before: a month's first build changes nothing)."""
    found = []
    known = {month for month, _ in before}  # a month built the first time has not changed
    for month, name in sorted(set(before) | set(after)):
        if month not in known:
            continue
        old, new = before.get((month, name)), after.get((month, name))
        if old != new and closes_at(month, settle_days) <= now:
            found.append(MonthChange(month, name, old, new))
    return found


def _money(value: Decimal | None) -> str:
    return "-" if value is None else f"{value:,.2f}"


def describe(changes: list[MonthChange]) -> list[str]:
    """One line per closed month changed, naming what changed."""
    months = sorted({c.month for c in changes})
    return [
        f"closed month {month:%Y-%m} changed: "
        + "; ".join(
            f"{c.figure} {_money(c.before)} -> {_money(c.after)}"
            for c in changes
            if c.month == month
        )
        for month in months
    ]


def change_rows(changes: list[MonthChange], cause: str, now: datetime) -> Rows:
    """`closed_month_changes` rows for `changes`, recorded now for `cause`."""
    return [
        {
            "change_id": f"{c.month:%Y-%m}/{c.figure}/{now.isoformat()}",
            "month": c.month,
            "figure": c.figure,
            "before_value": c.before,
            "after_value": c.after,
            "cause": cause,
            "recorded_at": now,
        }
        for c in changes
    ]
