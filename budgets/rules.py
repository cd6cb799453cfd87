"""Alert rules over budget status and daily spend: thresholds, forecast overruns, spend change."""

from __future__ import annotations

from collections import defaultdict
from datetime import date, timedelta
from decimal import Decimal

from flopledger.budgets.alerts import Alert
from flopledger.budgets.budget_file import SpendChangeRule
from flopledger.budgets.status import Status


def _money(value: Decimal) -> str:
    return f"{value.quantize(Decimal('0.01')):,} USD"


def _pct_text(value: float) -> str:
    return f"{value:g}%"


def period_words(status: Status) -> str:
    """The period as a reader says it: a month or quarter by its key (2026-10, 2026-Q4); a week
    by its days, since its key (the first day, 2026-10-05) reads like a date, not a period."""
    if status.period_kind == "week":
        return f"the week {status.period_start} to {status.period_end}"
    return status.period_key


def threshold_alerts(status: Status) -> list[Alert]:
    """One alert per threshold the current period has crossed."""
    if not status.is_current:
        return []
    alerts = []
    for t in status.thresholds_crossed:
        alerts.append(
            Alert(
                alert_id=f"threshold:{status.budget}:{status.period_key}:{t:g}",
                kind="threshold",
                subject=status.budget,
                severity="critical" if t >= 100 else "warning",
                title=f"Budget {status.budget} passed {_pct_text(t)} for {period_words(status)}",
                message=(
                    f"{_money(status.spend_to_date)} spent of {_money(status.amount_usd)} "
                    f"({status.percent_used:.1f}%) in {period_words(status)} ({status.scope})"
                ),
                channels=status.channels,
                details=_details(status, threshold_pct=t),
            )
        )
    return alerts


def forecast_alert(status: Status) -> list[Alert]:
    if not (status.is_current and status.forecast_alerts and status.forecast_overrun):
        return []
    return [
        Alert(
            alert_id=f"forecast:{status.budget}:{status.period_key}",
            kind="forecast",
            subject=status.budget,
            severity="warning",
            title=f"Budget {status.budget} is forecast to overrun {period_words(status)}",
            message=(
                f"forecast {_money(status.forecast)} against {_money(status.amount_usd)} "
                f"({status.forecast_percent:.1f}%) at {_money(status.run_rate_per_day)}/day "
                f"({status.scope})"
            ),
            channels=status.channels,
            details=_details(status),
        )
    ]


def _details(status: Status, **extra: object) -> dict[str, object]:
    keys = (
        "budget",
        "period_key",
        "period_start",
        "period_end",
        "as_of",
        "amount",
        "currency",
        "amount_usd",
        "spend_to_date",
        "forecast",
        "percent_used",
        "forecast_percent",
    )
    return {**{k: getattr(status, k) for k in keys}, **extra}


def budget_alerts(statuses: list[Status]) -> list[Alert]:
    return [a for s in statuses for a in (*threshold_alerts(s), *forecast_alert(s))]


def _series(spend: dict[tuple[str | None, date], Decimal]) -> dict[str | None, dict[date, Decimal]]:
    groups: dict[str | None, dict[date, Decimal]] = defaultdict(dict)
    for (group, day), value in spend.items():
        groups[group][day] = value
    return groups


def spend_change_alerts(
    rule: SpendChangeRule,
    spend: dict[tuple[str | None, date], Decimal],
    day: date,
    first_data_day: date | None,
) -> list[Alert]:
    """`day`'s spend above the mean of the `baseline_days` before it by more than `above_pct`.

    Only when the whole baseline lies on or after the first day with data."""
    start = day - timedelta(days=rule.baseline_days)
    if first_data_day is None or start < first_data_day:
        return []
    alerts = []
    for group, series in sorted(_series(spend).items(), key=lambda kv: str(kv[0])):
        baseline = (
            sum(
                (
                    series.get(start + timedelta(days=n), Decimal(0))
                    for n in range(rule.baseline_days)
                ),
                Decimal(0),
            )
            / rule.baseline_days
        )
        value = series.get(day, Decimal(0))
        if (
            baseline > 0
            and value >= rule.min_daily_spend
            and value > baseline * (1 + Decimal(str(rule.above_pct)) / 100)
        ):
            alerts.append(_spend_change(rule, group, day, value, baseline))
    return alerts


def _spend_change(
    rule: SpendChangeRule, group: str | None, day: date, value: Decimal, baseline: Decimal
) -> Alert:
    name = group if group is not None else "all"
    rise = float((value / baseline - 1) * 100)
    shown = group
    if group is not None and rule.group_by == "team":  # say which team (docs/glossary.md)
        which = "run-owner team" if rule.scope.basis == "allocated" else "label team"
        shown = f"{which} {group}"
    return Alert(
        alert_id=f"spend_change:{rule.name}:{name}:{day}",
        kind="spend_change",
        subject=rule.name,
        severity="warning",
        title=f"Spend jumped {rise:.0f}% on {day} ({rule.name}{'' if shown is None else ': ' + shown})",
        message=(
            f"{_money(value)} on {day} against a {rule.baseline_days}-day baseline of "
            f"{_money(baseline)}/day (limit +{rule.above_pct:g}%; {rule.scope.describe()})"
        ),
        channels=list(rule.channels),
        details={
            "day": day,
            "group": group,
            "spend": value,
            "baseline": baseline.quantize(Decimal("0.000000001")),
            "rise_pct": rise,
        },
    )
