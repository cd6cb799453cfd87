"""Period boundaries and forecast arithmetic, by hand."""

from datetime import date
from decimal import Decimal as D

import pytest

from flopledger.budgets.budget_file import BudgetConfigError, SpendChangeRule
from flopledger.budgets.fx import load_fx_rates, rate_on, to_usd
from flopledger.budgets.periods import period_containing, periods_between
from flopledger.budgets.rules import spend_change_alerts
from flopledger.figures.forecast import forecast_period


@pytest.mark.parametrize(
    ("kind", "day", "week_start", "start", "last", "key"),
    [
        (
            "month",
            date(2026, 10, 31),
            "monday",
            date(2026, 10, 1),
            date(2026, 10, 31),
            "2026-10",
        ),  # month end
        ("month", date(2026, 11, 1), "monday", date(2026, 11, 1), date(2026, 11, 30), "2026-11"),
        (
            "month",
            date(2026, 12, 31),
            "monday",
            date(2026, 12, 1),
            date(2026, 12, 31),
            "2026-12",
        ),  # year end
        (
            "month",
            date(2028, 2, 29),
            "monday",
            date(2028, 2, 1),
            date(2028, 2, 29),
            "2028-02",
        ),  # leap year
        (
            "week",
            date(2026, 10, 11),
            "monday",
            date(2026, 10, 5),
            date(2026, 10, 11),
            "2026-10-05",
        ),  # Sunday
        (
            "week",
            date(2026, 10, 12),
            "monday",
            date(2026, 10, 12),
            date(2026, 10, 18),
            "2026-10-12",
        ),  # Monday
        (
            "week",
            date(2026, 10, 11),
            "sunday",
            date(2026, 10, 11),
            date(2026, 10, 17),
            "2026-10-11",
        ),
        ("week", date(2026, 10, 10), "sunday", date(2026, 10, 4), date(2026, 10, 10), "2026-10-04"),
        (
            "week",
            date(2026, 12, 31),
            "friday",
            date(2026, 12, 25),
            date(2026, 12, 31),
            "2026-12-25",
        ),
        ("quarter", date(2026, 11, 15), "monday", date(2026, 10, 1), date(2026, 12, 31), "2026-Q4"),
        ("quarter", date(2027, 3, 31), "monday", date(2027, 1, 1), date(2027, 3, 31), "2027-Q1"),
        ("quarter", date(2027, 4, 1), "monday", date(2027, 4, 1), date(2027, 6, 30), "2027-Q2"),
    ],
)
def test_period_boundaries(kind, day, week_start, start, last, key):
    period = period_containing(kind, day, week_start)
    assert (period.start, period.last_day, period.key) == (start, last, key)


def test_periods_between_cover_every_overlapping_period():
    months = periods_between("month", date(2026, 9, 30), date(2026, 11, 1))
    assert [p.key for p in months] == ["2026-09", "2026-10", "2026-11"]


OCT = period_containing("month", date(2026, 10, 1))


def test_forecast_on_a_partial_first_week_of_data():
    # Data starts 10-08: 30, 40, 50 on 10-08 .. 10-10; as of 10-11 with a 7-day window only
    # 3 complete days have data: run rate = (30 + 40 + 50) / 3 = 40.
    spend = {
        date(2026, 10, 8): D(30),
        date(2026, 10, 9): D(40),
        date(2026, 10, 10): D(50),
        date(2026, 10, 11): D(5),
    }
    f = forecast_period(spend, OCT, date(2026, 10, 11), 7, first_data_day=date(2026, 10, 8))
    assert (f.run_rate, f.rate_days) == (D(40), 3)
    assert f.spend_to_date == D(125)  # 30 + 40 + 50 + 5 (10-11 so far)
    # forecast = 120 on complete days + 40 x 21 days left (10-11 .. 10-31) = 960
    assert f.forecast == D(960)


def test_forecast_window_reaches_before_the_period():
    # as of 11-02 (2 days into November): the 7-day window is 10-26 .. 11-01, 10 a day -> 10/day.
    spend = {date(2026, 10, d): D(10) for d in range(20, 32)} | {date(2026, 11, 1): D(10)}
    nov = period_containing("month", date(2026, 11, 2))
    f = forecast_period(spend, nov, date(2026, 11, 2), 7, first_data_day=date(2026, 10, 20))
    assert f.spend_to_date == D(10)  # only 11-01 is in November
    assert f.forecast == D(300)  # 10 + 10 x 29 days left (11-02 .. 11-30)


def test_a_closed_period_forecasts_its_spend():
    f = forecast_period({date(2026, 10, 5): D(7)}, OCT, date(2026, 11, 3), 7, date(2026, 10, 1))
    assert (f.spend_to_date, f.forecast, f.run_rate) == (D(7), D(7), D(0))


def test_spend_change_over_a_baseline():
    rule = SpendChangeRule(name="jump", baseline_days=4, above_pct=50, min_daily_spend=D(10))
    days = [date(2026, 10, d) for d in range(1, 6)]
    # baseline 10-01 .. 10-04: (10 + 20 + 30 + 20) / 4 = 20; limit 20 x 1.5 = 30.
    spend = {
        (None, d): v for d, v in zip(days, [D(10), D(20), D(30), D(20), D("30.01")], strict=True)
    }
    [alert] = spend_change_alerts(rule, spend, days[4], first_data_day=days[0])
    assert alert.alert_id == "spend_change:jump:all:2026-10-05"
    assert alert.details["baseline"] == D(20)
    spend[(None, days[4])] = D(30)  # exactly the limit: not above it
    assert spend_change_alerts(rule, spend, days[4], days[0]) == []
    # a baseline reaching before the data starts is not a baseline
    assert spend_change_alerts(rule, spend, days[4], first_data_day=days[1]) == []


def test_fx_rates_file(tmp_path):
    path = tmp_path / "fx.csv"
    path.write_text(
        "date,currency,rate\n2026-09-01,GBP,0.75\n2026-10-01,GBP,0.8\n2026-10-01,JPY,150\n"
    )
    rates = load_fx_rates(path)
    assert rate_on(rates, "GBP", date(2026, 10, 1)) == D("0.8")  # on the day
    assert rate_on(rates, "GBP", date(2026, 9, 30)) == D("0.75")  # latest before
    assert rate_on(rates, "JPY", date(2026, 9, 1)) == D(150)  # none before: the earliest
    assert to_usd(D(1000), D("0.75")) == D("1333.333333333")  # 1000 / 0.75, 9 places half-even
    with pytest.raises(BudgetConfigError, match="no rate for EUR"):
        rate_on(rates, "EUR", date(2026, 10, 1))
    path.write_text("date,currency,rate\n2026-10-01,GBP,zero\n")
    with pytest.raises(
        BudgetConfigError, match=r"fx.csv:2: expected date \(YYYY-MM-DD\), currency, rate"
    ):
        load_fx_rates(path)
