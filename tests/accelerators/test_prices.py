"""The accelerator price book (accelerators/prices.py): the shipped book carries the
simulator's prices, a config book overrides it row by row, and a bad book is one clear line."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from flopledger.accelerators.prices import PriceBookError, price_book, read_book
from flopledger.simulator.prices import CUD_RATE, SKUS

HEADER = (
    "accelerator_type,region,currency,on_demand_per_hour,commit_1y_per_hour,"
    "commit_3y_per_hour,source,as_of\n"
)


def _book(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "prices.csv"
    path.write_text(HEADER + "".join(line + "\n" for line in lines))
    return path


def test_shipped_book_has_the_simulators_prices() -> None:
    book = price_book()
    h100 = book[("H100-80GB", "us-central1")]
    assert h100.on_demand_per_hour == SKUS["h100"].list_price_usd
    # The simulator's 1-year fee: list x (1 - 0.37) = 9.796550569 x 0.63 = 6.17182685847.
    assert h100.commit_1y_per_hour == Decimal("6.17182685847")
    assert h100.commit_1y_per_hour == SKUS["h100_commitment"].list_price_usd
    assert h100.committed("1y") == SKUS["h100"].list_price_usd * (1 - CUD_RATE)
    # 3 years: 9.796550569 x 0.45 = 4.40844775605.
    assert h100.committed("3y") == Decimal("4.40844775605")
    assert book[("TPU-v5p", "us-central1")].on_demand_per_hour == SKUS["v5p"].list_price_usd
    assert {p.currency for p in book.values()} == {"USD"}
    assert all(p.as_of == date(2026, 10, 1) and p.source for p in book.values())


def test_config_book_overrides_row_by_row(tmp_path: Path) -> None:
    path = _book(tmp_path, "H100-80GB,us-central1,USD,8,5,4,negotiated,2026-11-01")
    book = price_book(path)
    assert book[("H100-80GB", "us-central1")].on_demand_per_hour == Decimal(8)
    assert book[("H100-80GB", "us-central1")].book == str(path)
    # Rows the override does not name keep the shipped prices.
    assert book[("H200-141GB", "us-central1")].on_demand_per_hour == Decimal("9.31174")


def test_the_latest_dated_row_counts(tmp_path: Path) -> None:
    path = _book(
        tmp_path,
        "TPU-v6e,us-central1,USD,3,2,1,new,2026-11-01",
        "TPU-v6e,us-central1,USD,2.5,2,1,old,2026-09-01",
    )
    assert read_book(path)[("TPU-v6e", "us-central1")].source == "new"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("H100-80GB,us-central1,USD,lots,1,1,x,2026-10-01", "on_demand_per_hour is not a number"),
        ("H100-80GB,us-central1,USD,-1,1,1,x,2026-10-01", "must be a finite number >= 0"),
        ("H100-80GB,us-central1,USD,NaN,1,1,x,2026-10-01", "must be a finite number >= 0"),
        ("H100-80GB,us-central1,USD,0,0,0,x,2026-10-01", "on_demand_per_hour must be above 0"),
        ("H100-80GB,us-central1,EUR,9,5,4,x,2026-10-01", "currency must be USD"),
        ("H100-80GB,us-central1,USD,9,5,4,x,yesterday", "as_of is not a date"),
        ("H100-80GB,,USD,9,5,4,x,2026-10-01", "region empty"),
        ("H100-80GB,us-central1,USD,9,5,4,x,2026-10-01,extra", "wrong number of fields"),
        ("H100-80GB,us-central1,USD,9.0000000000001,5,4,x,2026-10-01", "at most 12 decimal"),
    ],
)
def test_a_bad_row_is_one_clear_error_naming_its_line(
    tmp_path: Path, line: str, message: str
) -> None:
    path = _book(tmp_path, line)
    with pytest.raises(PriceBookError, match=message) as err:
        read_book(path)
    assert str(err.value).startswith(f"{path}:2: ")


def test_the_same_row_twice_for_one_date_is_refused(tmp_path: Path) -> None:
    path = _book(
        tmp_path,
        "TPU-v6e,us-central1,USD,3,2,1,a,2026-11-01",
        "TPU-v6e,us-central1,USD,2,2,1,b,2026-11-01",
    )
    with pytest.raises(PriceBookError, match=r":3: TPU-v6e in us-central1 twice for 2026-11-01"):
        read_book(path)


def test_missing_columns_and_unreadable_files(tmp_path: Path) -> None:
    path = tmp_path / "short.csv"
    path.write_text("accelerator_type,region\nH100-80GB,us-central1\n")
    with pytest.raises(PriceBookError, match="missing columns currency, on_demand_per_hour"):
        read_book(path)
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(PriceBookError, match="cannot be read"):
        read_book(bad)


def test_an_unknown_term_is_refused() -> None:
    with pytest.raises(PriceBookError, match="term must be one of 1y, 3y"):
        price_book()[("H100-80GB", "us-central1")].committed("5y")
