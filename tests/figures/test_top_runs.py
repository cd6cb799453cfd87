"""The top runs by cost: one list in the CLI, on the Overview and in the month report.

The CLI sorted by cost alone (ties in no order), the Overview and the report by cost then run
id, and the report took the runs started in the month where the pages took run_day (start,
else submission). All three read top_runs.
"""

from __future__ import annotations

from datetime import date

import pytest

from flopledger.cli.headline import headline_lines
from flopledger.reports.month import read_month
from tests.figures.shown import frame_with, page, published, squeezed
from tests.models.conftest import books  # noqa: F401 - the fixture the fleet is built with
from tests.models.rows import gpu, run


@pytest.fixture
def tied(books):  # noqa: F811 - the fixture imported above
    # vm-1's 8 GPUs: hour 00 (100) held by run "b", hour 01 (100) by run "a", hour 02 (40) by
    # run "c": a and b cost 100 each, c 40.
    return books.build(
        [gpu("2026-10-01 00", 100), gpu("2026-10-01 01", 100), gpu("2026-10-01 02", 40)],
        [run("b"), run("a", "2026-10-01T01:00:00Z", "2026-10-01T02:00:00Z"),
         run("c", "2026-10-01T02:00:00Z", "2026-10-01T03:00:00Z")],
    )  # fmt: skip


def test_one_order_of_the_top_runs_everywhere(tied, monkeypatch) -> None:
    # By cost, highest first, a tie by run id: a (100), b (100), c (40).
    lines = squeezed(headline_lines(tied.warehouse, "USD"))
    start = lines.index("top runs by cost (USD)")
    assert [line.split()[0] for line in lines[start + 2 : start + 5]] == ["a", "b", "c"]
    assert lines[start + 2].split()[-2:] == ["100.00", "100.0000"]  # 100 / 1M tokens x 1e6
    at = page(monkeypatch, published(tied), "overview")
    assert frame_with(at, "run_id")["run_id"].tolist() == ["a", "b", "c"]
    report = read_month(lambda sql, p: tied.rows(sql, p), date(2026, 10, 1))
    assert [r["run_id"] for r in report.top_runs_by_cost()] == ["a", "b", "c"]
