"""A FOCUS row whose Tags is not JSON (`team=llm`, as a hand-made CSV writes it) is loaded and
flagged, and the marts are built: its text is kept as a JSON string, so it names no team and
no label instead of failing every mart that reads a tag (Malformed JSON)."""

from decimal import Decimal as D
from pathlib import Path

from flopledger.collectors.focus.read import read_focus_files


def test_tags_that_are_not_json_do_not_stop_the_marts(books, tmp_path: Path):
    path = tmp_path / "aws.csv"
    path.write_text(
        "ProviderName,ChargeCategory,ChargePeriodStart,ChargePeriodEnd,BilledCost,EffectiveCost,"
        "BillingCurrency,ChargeDescription,ServiceCategory,BillingAccountId,ResourceId,Tags\n"
        "AWS,Usage,2026-10-01T00:00:00Z,2026-10-01T01:00:00Z,1.5,1.5,USD,m5.large,Compute,"
        "109876543210,i-0abc,team=llm\n"
    )
    read = read_focus_files([path])
    assert read.table.column("tags").to_pylist() == ['"team=llm"']
    assert "Tags is not JSON (kept as a JSON string)" in read.table.column("spec_issues")[0].as_py()
    books.warehouse.ensure_schema()
    books.warehouse.replace_all("focus_line_items", read.table)
    b = books.build([], [])
    assert b.rows("SELECT provider, team, effective_cost FROM spend_daily") == [
        {"provider": "AWS", "team": "__unallocated__", "effective_cost": D("1.5")}
    ]
    assert b.rows(
        "SELECT provider, labels, label_team, sum(effective_cost) AS cost FROM cost_explorer_rows"
        " GROUP BY ALL"
    ) == [{"provider": "AWS", "labels": None, "label_team": "__unallocated__", "cost": D("1.5")}]
