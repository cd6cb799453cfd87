"""The month's forecast: one value on the Overview and in budget_status.

The Overview projected month to date + the trailing 7 days' mean x days left in unrounded
Decimal; budgets round the run rate half-even to the nano-dollar and never forecast below the
spend to date. Both now call figures/forecast.py.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

import pytest

from flopledger.budgets.budget_file import parse_budgets
from flopledger.budgets.evaluate import evaluate_budgets
from flopledger.budgets.fx import load_fx_rates
from flopledger.dashboards.filters import Filters
from flopledger.dashboards.views.overview import month_forecast
from tests.figures.shown import metric, page, published
from tests.models.conftest import books  # noqa: F401 - the fixture the fleet is built with
from tests.models.rows import gpu


@pytest.fixture
def three_days(books):  # noqa: F811 - the fixture imported above
    # Spend 70, 80 and 100 on 10-01 .. 10-03; the last row's usage ends at 10-04 00:00, so the
    # budgets are as of 10-04 (the day after the Overview's range, as the Overview takes it).
    return books.build(
        [gpu("2026-10-01 10", 70), gpu("2026-10-02 10", 80),
         gpu("2026-10-03 23", 100, end_hour="2026-10-04 00")],
        [],
    )  # fmt: skip


def test_the_overview_forecasts_the_month_as_a_budget_does(three_days, monkeypatch) -> None:
    # As of 10-04: complete days 10-01 .. 10-03 spent 250; run rate 250 / 3 = 83.3333333333...,
    # rounded half-even to 83.333333333; 28 days left (10-04 .. 10-31): 250 + 83.333333333 x 28
    # = 250 + 2333.333333324 = 2583.333333324 (unrounded it would be 2583.3333333333...).
    expected = Decimal("2583.333333324")
    budgets = parse_budgets({"budgets": [{"name": "all", "scope": {}, "amount": 10000}]})
    statuses = evaluate_budgets(
        three_days.warehouse, budgets, load_fx_rates(None), datetime(2026, 10, 4)
    )
    [october] = [s for s in statuses if s.is_current]
    assert (october.spend_to_date, october.forecast) == (Decimal(250), expected)

    config = published(three_days)
    monkeypatch.setenv("FLOPLEDGER_CONFIG", str(config))
    assert month_forecast(Filters(date(2026, 10, 1), date(2026, 10, 3))) == expected
    at = page(monkeypatch, config, "overview")
    assert metric(at, "Forecast, October (USD)") == "$2,583.33"
