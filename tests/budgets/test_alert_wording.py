"""Alert wording a finance reader does not have to decode: a weekly budget's period is said in
days (its key, the week's first day, reads like a date), and the scope says which team."""

from datetime import date, datetime
from decimal import Decimal as D

from budgets.rules import forecast_alert, threshold_alerts
from budgets.status import Status


def _weekly(**kw) -> Status:
    fields = dict(
        budget="fleet-weekly", period_kind="week", period_key="2026-10-05",
        period_start=date(2026, 10, 5), period_end=date(2026, 10, 11), is_current=True,
        as_of=datetime(2026, 10, 6), scope="label team=llm", basis="billing", currency="USD",
        amount=D("1000"), fx_rate=D("1"), amount_usd=D("1000"), spend_to_date=D("600"),
        run_rate_per_day=D("200"), run_rate_days=7, forecast=D("1600"), percent_used=60.0,
        forecast_percent=160.0, thresholds=[50.0], thresholds_crossed=[50.0], over_budget=False,
        forecast_overrun=True, forecast_alerts=True, channels=[],
    )  # fmt: skip
    return Status(**{**fields, **kw})


def test_a_week_is_said_in_days():
    [forecast] = forecast_alert(_weekly())
    assert forecast.title == (
        "Budget fleet-weekly is forecast to overrun the week 2026-10-05 to 2026-10-11"
    )
    assert forecast.alert_id == "forecast:fleet-weekly:2026-10-05"  # ids keep the key
    [passed] = threshold_alerts(_weekly())
    assert passed.title == "Budget fleet-weekly passed 50% for the week 2026-10-05 to 2026-10-11"
    assert passed.message.endswith("(label team=llm)")


def test_a_month_keeps_its_key():
    month = _weekly(period_kind="month", period_key="2026-10", period_start=date(2026, 10, 1),
                    period_end=date(2026, 10, 31))  # fmt: skip
    assert threshold_alerts(month)[0].title == "Budget fleet-weekly passed 50% for 2026-10"
