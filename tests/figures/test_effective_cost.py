"""Effective cost and the books' split: one value in the CLI, on the Overview and in the month
report, FOCUS rows included.

The month report's split read Google's rows only (a FOCUS provider's bill was in the invoice,
not in the split), and showed the invoice's BilledCost-based figure as "Effective cost"; the
CLI rounded each FOCUS row to the nano-dollar where the pages summed spend_daily. The bill is
now bill_totals' and the split bill_split's, for every caller; the invoice's figure is the
invoiced cost, which differs from the effective cost by the commitment amortisation.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

import pytest

from flopledger.cli.headline import headline_lines
from flopledger.reports.month import read_month
from tests.figures.shown import metric, page, published, squeezed
from tests.models.conftest import books  # noqa: F401 - the fixture the fleet is built with
from tests.models.rows import gpu

# One AWS row (FOCUS 1.2) on 2026-10-02 in the October billing period: BilledCost 100, its
# EffectiveCost 80 (a savings plan bought up front covers a fifth of it).
AWS_ROW = {
    "line_item_id": "aws-1", "charge_day": date(2026, 10, 2), "billed_cost": Decimal(100),
    "billing_currency": "USD", "charge_category": "Usage",
    "charge_period_start": datetime(2026, 10, 2), "charge_period_end": datetime(2026, 10, 2, 1),
    "effective_cost": Decimal(80), "provider_name": "AWS", "focus_version": "1.2",
    "service_category": "Storage", "billing_period_start": datetime(2026, 10, 1),
    "billing_account_id": "aws-account", "sub_account_id": "aws-project",
}  # fmt: skip


@pytest.fixture
def two_clouds(books):  # noqa: F811 - the fixture imported above
    # Google: one H100 row of 100 and no run, so all of it is unallocated idle.
    b = books.build([gpu("2026-10-01 00", 100)], [])
    b._load("focus_line_items", [AWS_ROW])
    return b.build_marts()


def test_one_effective_cost_and_one_split_for_the_cli_the_overview_and_the_report(
    two_clouds, monkeypatch
) -> None:
    # Billed 100 + 100 = 200; no credits; effective 100 + 80 = 180; the 20 between them is
    # AWS's commitment amortisation. The books: Google's 100 unallocated idle, AWS's 80 shared
    # (storage, no accelerator): 180.
    lines = squeezed(headline_lines(two_clouds.warehouse, "USD"))
    assert lines[2:6] == [
        "billed cost 200.00 USD",
        "credits 0.00 USD",
        "commitment amortisation -20.00 USD",
        "effective cost 180.00 USD",
    ]
    assert "unallocated idle cost 100.00 USD (accelerators paid for, held by no run)" in lines
    assert "shared cost 80.00 USD (storage, network, tax: no run held them)" in lines

    at = page(monkeypatch, published(two_clouds), "overview")
    assert metric(at, "Spend (label team) (USD)") == "$180.00"

    report = read_month(lambda sql, p: two_clouds.rows(sql, p), date(2026, 10, 1))
    split = {r["billing_account_id"]: r for r in report.split}
    assert (split["aws-account"]["shared_cost"], split["aws-account"]["effective_cost"]) == (80, 80)
    assert report.split_total() == Decimal(180)
    # The invoice charges BilledCost: 100 + 100 (invoiced cost), 20 above the effective cost.
    assert report.invoice_total() == Decimal(200)
