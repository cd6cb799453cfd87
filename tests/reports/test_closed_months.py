"""Which closed months a run changed (reports/closed_months.py): only months closed at the run's
clock, only figures that moved, and never a month's first build."""

from datetime import date, datetime
from decimal import Decimal as D

from flopledger.reports.closed_months import MonthChange, change_rows, closed_changes, describe

SEP, OCT, NOV = date(2026, 9, 1), date(2026, 10, 1), date(2026, 11, 1)
NOW = datetime(2026, 11, 10)  # settle days 5: October closed 2026-11-06, November open


def test_only_closed_months_that_moved_are_changes():
    before = {
        (SEP, "effective_cost"): D("162"),
        (OCT, "chargeback llm total_cost"): D("108"),
        (NOV, "chargeback llm total_cost"): D("10"),
    }
    after = {
        (SEP, "effective_cost"): D("162"),  # unchanged
        (OCT, "chargeback llm total_cost"): D("112"),
        (OCT, "chargeback vision total_cost"): D("56"),  # a team new in a built month
        (NOV, "chargeback llm total_cost"): D("20"),  # open: free to change
        (date(2026, 8, 1), "effective_cost"): D("5"),  # first built now: not a change
    }
    found = closed_changes(before, after, NOW, settle_days=5)
    assert found == [
        MonthChange(OCT, "chargeback llm total_cost", D("108"), D("112")),
        MonthChange(OCT, "chargeback vision total_cost", None, D("56")),
    ]
    assert describe(found) == [
        "closed month 2026-10 changed: chargeback llm total_cost 108.00 -> 112.00; "
        "chargeback vision total_cost - -> 56.00"
    ]
    rows = change_rows(found, "run: late rows", NOW)
    assert [r["change_id"] for r in rows] == [
        "2026-10/chargeback llm total_cost/2026-11-10T00:00:00",
        "2026-10/chargeback vision total_cost/2026-11-10T00:00:00",
    ]
