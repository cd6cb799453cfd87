"""Change and relative change on the cost explorer: the total row's, from SQL.

The page summed the groups in Python and divided Decimals there (-0.02101678125396284740...)
where the query divided DOUBLEs per group (-0.02101678125396285), and hid a change of exactly
0. It now reads explorer_compare's one row over every group.
"""

from __future__ import annotations

import pytest

from tests.figures.shown import page, published
from tests.models.conftest import books  # noqa: F401 - the fixture the fleet is built with
from tests.models.rows import gpu


def _change(at) -> tuple[str, str]:
    [shown] = [m for m in at.metric if m.label == "Change (USD)"]
    return shown.value, shown.proto.delta


@pytest.fixture
def two_days(books):  # noqa: F811 - the fixture imported above
    # 10-01: 80; 10-02: 100 (GPU rows of vm-1, no run).
    return books.build([gpu("2026-10-01 10", 80), gpu("2026-10-02 10", 100)], [])


def test_the_explorer_change_is_the_query_total(two_days, monkeypatch) -> None:
    config = published(two_days)
    # 10-02 against 10-01: 100 - 80 = 20; 20 / 80 = 0.25 -> 25.0%.
    at = page(monkeypatch, config, "explorer", {"from": "2026-10-02", "to": "2026-10-02"})
    assert _change(at) == ("$20.00", "25.0%")
    # 10-01 against 09-30 (nothing spent): no relative change to show, not a zero.
    at = page(monkeypatch, config, "explorer", {"from": "2026-10-01", "to": "2026-10-01"})
    assert _change(at) == ("$80.00", "")


def test_a_change_of_zero_is_shown(books, monkeypatch) -> None:  # noqa: F811
    # 50 on each of 10-01 and 10-02: 0 / 50 = 0.0%, shown (it was hidden as if unknown).
    flat = books.build([gpu("2026-10-01 10", 50), gpu("2026-10-02 10", 50)], [])
    at = page(monkeypatch, published(flat), "explorer", {"from": "2026-10-02", "to": "2026-10-02"})
    assert _change(at) == ("$0.00", "0.0%")
