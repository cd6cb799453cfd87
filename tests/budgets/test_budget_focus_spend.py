"""Budgets count other clouds' FOCUS rows (issue 18 review item 3).

Three AWS rows (FOCUS, USD): on 1 October 2026 a savings-plan-covered p5 hour of account
210987654321 (BilledCost 0, EffectiveCost 38.40, Tags team=llm) and an on-demand half hour
(27.52, team=vision); on 2 October a 10.00 row of account 310987654321 (team=llm).
By hand: everything 1 Oct 38.40 + 27.52 = 65.92, 2 Oct 10.00; team llm 38.40 and 10.00;
project 210987654321 65.92 on 1 Oct only; label team=vision 27.52; by team on 1 Oct:
llm 38.40, vision 27.52. Bounds: first day 1 Oct, last billed end 2 Oct 11:00."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

import pytest

from flopledger.budgets.budget_file import Scope
from flopledger.budgets.spend import data_bounds, scoped_daily_spend
from flopledger.collectors.focus.read import read_focus_files
from flopledger.warehouse.duckdb import DuckDBWarehouse

D = Decimal
HEADER = (
    "ProviderName,BillingAccountId,SubAccountId,BillingCurrency,ChargeCategory,ChargePeriodStart,"
    "ChargePeriodEnd,BilledCost,EffectiveCost,ListCost,ResourceId,ChargeDescription,Tags"
)
P5 = "USD 55.04 per On Demand Linux p5.48xlarge Instance Hour"
ROWS = [
    f"AWS,1098,210987654321,USD,Usage,2026-10-01T10:00:00Z,2026-10-01T11:00:00Z,0,38.40,55.04,"
    f'i-0aaa,{P5},"{{""team"": ""llm""}}"',
    f"AWS,1098,210987654321,USD,Usage,2026-10-01T10:00:00Z,2026-10-01T11:00:00Z,27.52,27.52,27.52,"
    f'i-0bbb,{P5},"{{""team"": ""vision""}}"',
    f"AWS,1098,310987654321,USD,Usage,2026-10-02T10:00:00Z,2026-10-02T11:00:00Z,10,10,10,"
    f'i-0ccc,{P5},"{{""team"": ""llm""}}"',
]


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> DuckDBWarehouse:
    root = tmp_path_factory.mktemp("focus-budgets")
    path = root / "aws.csv"
    path.write_text("\n".join([HEADER, *ROWS]) + "\n")
    read = read_focus_files([path])
    assert read.quarantined == [] and read.table.num_rows == 3
    w = DuckDBWarehouse(root / "w.duckdb")
    w.ensure_schema()
    w.replace_all("focus_line_items", read.table)
    return w


def test_a_billing_budget_counts_focus_rows(warehouse):
    everything = scoped_daily_spend(warehouse, Scope())
    assert everything == {(None, date(2026, 10, 1)): D("65.92"), (None, date(2026, 10, 2)): D(10)}
    llm = scoped_daily_spend(warehouse, Scope(team=["llm"]))
    assert llm == {(None, date(2026, 10, 1)): D("38.40"), (None, date(2026, 10, 2)): D(10)}
    project = scoped_daily_spend(warehouse, Scope(project=["210987654321"]))
    assert project == {(None, date(2026, 10, 1)): D("65.92")}
    vision = scoped_daily_spend(warehouse, Scope(labels={"team": "vision"}))
    assert vision == {(None, date(2026, 10, 1)): D("27.52")}
    assert scoped_daily_spend(warehouse, Scope(labels={"team": "llm", "env": "prod"})) == {}
    by_team = scoped_daily_spend(warehouse, Scope(), group_by="team")
    assert by_team[("llm", date(2026, 10, 1))] == D("38.40")
    assert by_team[("vision", date(2026, 10, 1))] == D("27.52")


def test_focus_rows_bound_the_budget_days(warehouse):
    first, last = data_bounds(warehouse)
    assert first == date(2026, 10, 1)
    assert last.replace(tzinfo=None) == datetime(2026, 10, 2, 11)
