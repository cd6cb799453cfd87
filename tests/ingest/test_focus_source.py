"""The FOCUS source: the public sample loaded into the warehouse keeps every decimal (the
README's per-provider totals, summed in DuckDB); a rerun changes nothing; a late row for an
old day replaces that day; `sources.focus.paths` is read and its days found."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

from flopledger.collectors.focus.read import read_focus_files
from flopledger.ingest.focus import days_to_replace, load
from flopledger.ingest.registry import input_days
from flopledger.settings import load_config
from flopledger.warehouse.duckdb import DuckDBWarehouse

SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "focus" / "focus_sample.csv"
TOTALS = "SELECT provider_name, sum(billed_cost) AS b, sum(effective_cost) AS e, count(*) AS n FROM focus_line_items GROUP BY 1 ORDER BY 1"


def _totals(w: DuckDBWarehouse) -> list[tuple]:
    return [(r["provider_name"], r["b"], r["e"], r["n"]) for r in w.query(TOTALS).to_pylist()]


def test_sample_in_the_warehouse_to_the_last_digit(tmp_path: Path) -> None:
    """README: BilledCost AWS 18.00663861840, Microsoft 1.97651418586, Oracle 0.53707392473;
    EffectiveCost AWS 13, Microsoft 1.97651418586, Oracle 0 (942, 51 and 7 rows)."""
    w = DuckDBWarehouse(tmp_path / "w.duckdb")
    w.ensure_schema()
    read = read_focus_files([SAMPLE])
    counts = load(w, read, [])
    assert counts == {
        "rows_read": 1000,
        "rows_loaded": 1000,
        "rows_duplicate": 0,
        "rows_quarantined": 0,
        "rows_outside_window": 0,
    }
    expected = [
        ("AWS", Decimal("18.00663861840"), Decimal("13"), 942),
        ("Microsoft", Decimal("1.97651418586"), Decimal("1.97651418586"), 51),
        ("Oracle", Decimal("0.53707392473"), Decimal("0"), 7),
    ]
    assert _totals(w) == expected
    # Rerun: nothing differs, so only the window's day is picked, and the totals stand.
    assert days_to_replace(w, read, [date(2024, 10, 5)]) == [date(2024, 10, 5)]
    load(w, read, [date(2024, 9, 18)])
    assert _totals(w) == expected


def test_late_row_replaces_its_old_day(tmp_path: Path) -> None:
    w = DuckDBWarehouse(tmp_path / "w.duckdb")
    w.ensure_schema()
    head = "ProviderName,ChargeCategory,ChargePeriodStart,ChargePeriodEnd,BilledCost,EffectiveCost,BillingCurrency\n"
    first = tmp_path / "a.csv"
    first.write_text(head + "AWS,Usage,2026-03-01T00:00:00Z,2026-03-01T01:00:00Z,98.32,98.32,USD\n")
    load(w, read_focus_files([first]), [date(2026, 3, 1)])
    late = tmp_path / "b.csv"
    late.write_text(head + "AWS,Credit,2026-03-01T00:00:00Z,2026-03-01T01:00:00Z,-8.32,-8.32,USD\n")
    read = read_focus_files([first, late])
    assert days_to_replace(w, read, [date(2026, 3, 9)]) == [date(2026, 3, 1), date(2026, 3, 9)]
    load(w, read, [date(2026, 3, 9)])
    assert _totals(w) == [("AWS", Decimal("90"), Decimal("90"), 2)]  # 98.32 - 8.32


def test_rows_of_days_not_replaced_are_counted_outside_the_window(tmp_path: Path) -> None:
    """A rerun for 2 March of a file holding 1, 2 and 3 March (unchanged) replaces 2 March only:
    the other two rows are read and counted outside the window, so read 3 = loaded 1 +
    duplicate 0 + quarantined 0 + outside window 2 (never `neither loaded nor refused`)."""
    w = DuckDBWarehouse(tmp_path / "w.duckdb")
    w.ensure_schema()
    head = "ProviderName,ChargeCategory,ChargePeriodStart,ChargePeriodEnd,BilledCost,EffectiveCost,BillingCurrency\n"
    row = "AWS,Usage,2026-03-0{d}T00:00:00Z,2026-03-0{d}T01:00:00Z,{d}.00,{d}.00,USD\n"
    path = tmp_path / "march.csv"
    path.write_text(head + "".join(row.format(d=d) for d in (1, 2, 3)))
    first = load(w, read_focus_files([path]), [date(2026, 3, 2)])  # a new warehouse: all 3 days
    assert (first["rows_read"], first["rows_loaded"], first["rows_outside_window"]) == (3, 3, 0)
    again = load(w, read_focus_files([path]), [date(2026, 3, 2)])
    assert again == {
        "rows_read": 3,
        "rows_loaded": 1,
        "rows_duplicate": 0,
        "rows_quarantined": 0,
        "rows_outside_window": 2,
    }
    assert _totals(w) == [("AWS", Decimal("6"), Decimal("6"), 3)]  # 1 + 2 + 3, nothing lost


def test_config_paths_are_read_and_their_days_found(tmp_path: Path) -> None:
    config_file = tmp_path / "flopledger.yaml"
    config_file.write_text(
        f"warehouse:\n  path: {tmp_path / 'w.duckdb'}\nsources:\n  focus:\n    paths: ['{SAMPLE}']\n"
        "limits:\n  earliest: 2024-01-01\n"
    )
    config = load_config(config_file)
    days = input_days(config)
    # The sample's ChargePeriodStart values fall on each of the 30 days of September 2024.
    assert days == {date(2024, 9, d) for d in range(1, 31)}


def test_a_restated_effective_cost_and_a_day_no_longer_held_are_replaced(tmp_path: Path) -> None:
    """Issue 18 review item 4: 1 March's row restated with the same BilledCost (98.32) but
    EffectiveCost 90.00 instead of 98.32, and 2 March's row (5.00) gone from the files, both
    outside the run's window (9 March). After the load: one row, billed 98.32, effective 90."""
    w = DuckDBWarehouse(tmp_path / "w.duckdb")
    w.ensure_schema()
    head = "ProviderName,ChargeCategory,ChargePeriodStart,ChargePeriodEnd,BilledCost,EffectiveCost,BillingCurrency\n"
    day1 = "AWS,Usage,2026-03-01T00:00:00Z,2026-03-01T01:00:00Z,98.32,{},USD\n"
    old = tmp_path / "old.csv"
    old.write_text(
        head
        + day1.format("98.32")
        + "AWS,Usage,2026-03-02T00:00:00Z,2026-03-02T01:00:00Z,5,5,USD\n"
    )
    load(w, read_focus_files([old]), [date(2026, 3, 1), date(2026, 3, 2)])
    assert _totals(w) == [("AWS", Decimal("103.32"), Decimal("103.32"), 2)]
    new = tmp_path / "new.csv"
    new.write_text(head + day1.format("90.00"))
    read = read_focus_files([new])
    window = [date(2026, 3, 9)]
    assert days_to_replace(w, read, window) == [
        date(2026, 3, 1),
        date(2026, 3, 2),
        date(2026, 3, 9),
    ]
    load(w, read, window)
    assert _totals(w) == [("AWS", Decimal("98.32"), Decimal("90"), 1)]
    assert days_to_replace(w, read, window) == window  # a rerun changes nothing more
    empty = tmp_path / "empty.csv"
    empty.write_text(head)
    assert days_to_replace(w, read_focus_files([empty]), window) == window  # nothing removed
