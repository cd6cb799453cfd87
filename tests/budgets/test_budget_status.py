"""budget_status and the alerts it raises, from the real pipeline (numbers worked by hand).

The warehouse (conftest): llm 50/day and vision 20/day (80 on 10-10), 2026-10-01 .. 10-10;
data ends 2026-10-11 00:00, so the as-of day is 10-11 and 10-04 .. 10-10 are the last 7
complete days.
"""

from datetime import date
from decimal import Decimal as D

import pytest

from flopledger.cli.run_report import render
from flopledger.pipelines.resources import Flopledger
from tests.budgets.conftest import NOW, Ledger, new_project

BUDGETS = """
forecast_window_days: 7
channels:
  finance: {kind: slack, url_env: FLOPLEDGER_TEST_FINANCE}
budgets:
  - {name: llm-monthly, scope: {team: llm}, period: month, amount: 1000, thresholds: [50, 80, 100], channels: [finance]}
  - {name: vision-eur, scope: {team: vision}, period: month, amount: 500, currency: EUR, thresholds: [50]}
  - {name: fleet-weekly, period: week, week_start: sunday, amount: 500, forecast_alerts: true}
  - {name: fleet-quarter, period: quarter, amount: 100000, forecast_alerts: false}
rules:
  spend_change:
    - {name: jump, group_by: team, baseline_days: 3, above_pct: 100}
"""

# EUR per USD: the latest rate on or before the period's first day (10-01) is 0.8.
FX = "date,currency,rate\n2026-09-30,EUR,0.8\n2026-10-15,EUR,0.9\n"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Ledger:
    """One pipeline run shared by the read-only tests below."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Flopledger, "now", lambda self: NOW)
        ledger = Ledger(new_project(tmp_path_factory.mktemp("budgets")))
        ledger.setup(BUDGETS, FX).run()
    return ledger


def test_month_budget_thresholds_and_forecast(built):
    ledger = built
    s = ledger.status("llm-monthly")
    assert (s["period_start"], s["period_end"], s["period_key"]) == (
        date(2026, 10, 1),
        date(2026, 10, 31),
        "2026-10",
    )
    assert s["spend_to_date"] == D("500")  # 10 days x 50
    assert s["percent_used"] == 50.0  # 500 / 1000
    assert s["thresholds_crossed"] == [50.0]
    assert s["run_rate_per_day"] == D("50")  # (7 x 50) / 7
    # forecast = 500 spent on complete days + 50/day x 21 days left (10-11 .. 10-31) = 1550
    assert s["forecast"] == D("1550")
    assert s["forecast_overrun"] and not s["over_budget"]


def test_budget_in_euros_is_converted_with_fx_rates(built):
    ledger = built
    s = ledger.status("vision-eur")
    assert s["fx_rate"] == D("0.8")
    assert s["amount_usd"] == D("625")  # 500 EUR / 0.8 EUR per USD
    assert s["spend_to_date"] == D("260")  # 9 x 20 + 80
    assert s["percent_used"] == 41.6  # 260 / 625
    assert s["thresholds_crossed"] == []
    # run rate: 10-04 .. 10-10 = 6 x 20 + 80 = 200 / 7 = 28.571428571 (9 places)
    assert s["run_rate_per_day"] == D("28.571428571")
    # forecast = 260 + 28.571428571 x 21 = 260 + 599.999999991
    assert s["forecast"] == D("859.999999991")
    assert s["forecast_overrun"]


def test_week_starting_sunday_is_forecast_from_the_week_before(built):
    ledger = built
    s = ledger.status("fleet-weekly")
    # 2026-10-11 is a Sunday: the current week is 10-11 .. 10-17 and nothing is spent in it yet.
    assert (s["period_start"], s["period_end"]) == (date(2026, 10, 11), date(2026, 10, 17))
    assert s["spend_to_date"] == D("0")
    # run rate from 10-04 .. 10-10: (6 x 70 + 130) / 7 = 550 / 7 = 78.571428571; x 7 days left
    assert s["forecast"] == D("549.999999997")
    assert s["forecast_overrun"]  # 549.999999997 > 500
    weeks = ledger.rows(
        "SELECT period_key FROM budget_status WHERE budget = 'fleet-weekly' ORDER BY period_start"
    )
    # weeks starting Sundays 09-27 (holds 10-01 .. 10-03), 10-04, 10-11
    assert [w["period_key"] for w in weeks] == ["2026-09-27", "2026-10-04", "2026-10-11"]


def test_quarter_period_and_alert_ids(built):
    ledger = built
    q = ledger.status("fleet-quarter")
    assert (q["period_key"], q["period_start"], q["period_end"]) == (
        "2026-Q4",
        date(2026, 10, 1),
        date(2026, 12, 31),
    )
    assert q["spend_to_date"] == D("760")  # 500 + 260
    assert ledger.alert_ids() == [
        "forecast:fleet-weekly:2026-10-11",
        "forecast:llm-monthly:2026-10",
        "forecast:vision-eur:2026-10",
        # vision on 10-10: 80 against a 3-day baseline of (20 + 20 + 20) / 3 = 20: +300% > +100%
        "spend_change:jump:vision:2026-10-10",
        "threshold:llm-monthly:2026-10:50",
    ]  # fleet-quarter: forecast alerts off; llm's 50 against its baseline 50: no change


def test_rerun_raises_nothing_new_and_run_reports_the_checks(ledger, clock):
    ledger.setup(BUDGETS, FX)
    report = ledger.run()
    first = ledger.rows("SELECT alert_id, raised_at FROM alerts ORDER BY alert_id")
    clock.now = clock.now.replace(hour=9)
    ledger.run()
    assert ledger.rows("SELECT alert_id, raised_at FROM alerts ORDER BY alert_id") == first
    checks = {c.name: c for c in report.checks if c.asset == "budget_status"}
    assert not checks["budget_thresholds"].passed and checks["budget_thresholds"].severity == "WARN"
    assert (
        not checks["budget_not_exceeded"].passed
        and checks["budget_not_exceeded"].severity == "ERROR"
    )
    assert "llm-monthly 2026-10: forecast 155.0%" in checks["budget_not_exceeded"].description
    printed = render(report)  # what `flopledger run` prints
    assert "open alerts: 5" in printed
    assert "WARNING  2026-10-11 06:00  Budget llm-monthly passed 50% for 2026-10" in printed
