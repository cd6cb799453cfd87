"""The idle shares: one value in the CLI, on the Idle and Overview pages, in the idle-share
alert and the month report.

The pages divided Decimals in Python (0.5833333333333333333333333333) where the CLI and the
alert divided DOUBLEs in SQL (0.5833333333333334); all of them now read idle_figures, whose
rule is one DOUBLE division of the exact sums.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from flopledger.budgets.budget_file import EfficiencyRule
from flopledger.budgets.efficiency import measure
from flopledger.cli.headline import idle_figure_lines
from flopledger.reports.month import read_month
from tests.figures.shown import frame_with, metric, page, published, squeezed
from tests.models.conftest import books  # noqa: F401 - the fixture the fleet is built with
from tests.models.rows import gpu, host, run


@pytest.fixture
def idle_fleet(books):  # noqa: F811 - the fixture imported above
    # One 8-GPU VM for two hours, 16 GPU-hours: hour 00 GPU 80 + host 20 = 100; hour 01 GPU 80 +
    # host 60 = 140; 240 in all. A run holds all 8 GPUs in hour 00 only -> 100 allocated;
    # hour 01 is unallocated idle: 140 and 8 GPU-hours. No telemetry: no allocated idle.
    return books.build(
        [gpu("2026-10-01 00", 80), host("2026-10-01 00", 20),
         gpu("2026-10-01 01", 80), host("2026-10-01 01", 60)],
        [run("r", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z")],
    )  # fmt: skip


def test_one_idle_share_in_the_cli_the_pages_the_alert_and_the_month_report(
    idle_fleet, monkeypatch
) -> None:
    # Unallocated idle share of cost = idle share of cost = 140 / 240 = 7 / 12, one DOUBLE
    # division (the nearest double to 0.58333..., as Python's 7 / 12); of hours 8 / 16 = 0.5.
    share = 7 / 12
    lines = squeezed(idle_figure_lines(idle_fleet.warehouse))
    assert lines[0] == "unallocated idle share of cost 58.3% (of the accelerator resource cost)"

    config = published(idle_fleet)
    at = page(monkeypatch, config, "idle")
    assert metric(at, "Unallocated idle share of cost") == "58.3%"
    assert metric(at, "Unallocated idle share of hours") == "50.0%"
    by_project = frame_with(at, "project_id").set_index("project_id")
    assert by_project.loc["ml-prod", "unallocated_idle_share_of_cost"] == share
    assert by_project.loc["ml-prod", "idle_share_of_cost"] == share
    assert by_project.loc["ml-prod", "accelerator_cost"] == Decimal("240")
    assert metric(page(monkeypatch, config, "overview"), "Idle share of cost") == "58.3%"

    rule = EfficiencyRule(name="idle", metric="idle_cost_share", above=0.3)
    assert measure(idle_fleet.warehouse, rule, date(2026, 10, 2)) == {"ml-prod": share}

    idle = read_month(lambda sql, p: idle_fleet.rows(sql, p), date(2026, 10, 1)).idle
    assert (idle["accelerator_cost"], idle["unallocated_idle_cost"]) == (240, 140)
    assert idle["unallocated_idle_share_of_cost"] == share
    assert (idle["paid_accelerator_hours"], idle["unallocated_idle_hours"]) == (16.0, 8.0)
