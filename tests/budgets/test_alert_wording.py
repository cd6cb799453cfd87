"""Alert wording a finance reader does not have to decode: a weekly budget's period is said in
days (its key, the week's first day, reads like a date), and the scope says which team."""

from datetime import date, datetime
from decimal import Decimal as D

from flopledger.budgets.rules import forecast_alert, threshold_alerts
from flopledger.budgets.status import Status


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


def test_a_spend_jump_by_team_says_which_team():
    from flopledger.budgets.budget_file import SpendChangeRule
    from flopledger.budgets.rules import spend_change_alerts

    # llm's label-team spend: 10 a day for 3 days, then 20 (+100% > +50%).
    rule = SpendChangeRule(name="jump", group_by="team", baseline_days=3, above_pct=50)
    spend = {("llm", date(2026, 10, d)): D(10) for d in (1, 2, 3)} | {
        ("llm", date(2026, 10, 4)): D(20)
    }
    [alert] = spend_change_alerts(rule, spend, date(2026, 10, 4), date(2026, 10, 1))
    assert alert.title == "Spend jumped 100% on 2026-10-04 (jump: label team llm)"
