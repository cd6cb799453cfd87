"""Cost per million tokens: one value in the CLI, on the tokens page and in the month report.

The month report divided the cost of every run of a model, runs without tokens included, and
rounded half-even; the CLI divided in Python; the page truncated nano-dollars over the runs
with tokens. All three now read cost_per_million_tokens_by.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from flopledger.cli.headline import headline_lines
from flopledger.reports.month import read_month
from tests.figures.shown import frame_with, metric, page, published, squeezed
from tests.models.conftest import books  # noqa: F401 - the fixture the fleet is built with
from tests.models.rows import gpu, run


@pytest.fixture
def two_runs(books):  # noqa: F811 - the fixture imported above
    # vm-1's 8 GPUs: hour 00 costs 200, held by run "a" (llama-8b, 3,000,000 tokens in); hour 01
    # costs 50, held by run "b" (llama-8b too, no tokens).
    return books.build(
        [gpu("2026-10-01 00", 200), gpu("2026-10-01 01", 50)],
        [run("a", tokens_in=3_000_000, tokens_out=0),
         run("b", "2026-10-01T01:00:00Z", "2026-10-01T02:00:00Z", tokens_in=None, tokens_out=None)],
    )  # fmt: skip


def test_one_rate_in_the_cli_the_tokens_page_and_the_month_report(two_runs, monkeypatch) -> None:
    # Only "a" has tokens: 200 x 1e6 / 3,000,000 = 66.666666666..., truncated to the nano-dollar
    # 66.666666666 (half-even would make it ...667; the month report used to divide 200 + 50 =
    # 250 by the same tokens: 83.333333333).
    rate = Decimal("66.666666666")
    lines = squeezed(headline_lines(two_runs.warehouse, "USD"))
    start = lines.index("cost per million tokens (USD; the 12 biggest spends)")
    assert lines[start + 2] == "llama-8b pretraining 3,000,000 200.00 66.6667"

    at = page(monkeypatch, published(two_runs), "tokens")
    assert metric(at, "Cost per million tokens (USD)") == "$66.67"
    assert metric(at, "Cost of runs started (USD)") == "$200.00"
    assert frame_with(at, "cost_per_million_tokens")["cost_per_million_tokens"].tolist() == [rate]

    report = read_month(lambda sql, p: two_runs.rows(sql, p), date(2026, 10, 1))
    [model] = report.group_rows("model")
    # The model's cost is both runs' (200 + 50); its rate is the figure's, of "a" alone.
    assert (model["model"], model["started_run_cost"], model["tokens"]) == (
        "llama-8b",
        250,
        3_000_000,
    )
    assert model["cost_per_million_tokens"] == rate
    [experiment] = report.group_rows("experiment")
    assert experiment["cost_per_million_tokens"] == rate
