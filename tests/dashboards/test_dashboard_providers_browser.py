"""The Overview with two providers in headless Chromium: both providers' rows in the breakdown,
and choosing a provider in the sidebar writes `?provider=AWS` and shows AWS's bill (worked by
hand in test_dashboard_providers.py: 1,865.045333334 USD). The screenshot goes to
test-artifacts/dashboards/; with FLOPLEDGER_UPDATE_DOCS_IMG=1 also to
docs/img/overview-providers.png (docs/focus.md shows it)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.dashboards.helpers import Marts, money
from tests.dashboards.test_dashboard_browser import (  # noqa: F401 - the marks
    ARGS,
    ARTIFACTS,
    CHROMIUM,
    REPO,
    _free_port,
    _wait_healthy,
    pytestmark,
)
from tests.dashboards.test_dashboard_providers import AWS_BILL

METRIC = '[data-testid="stMetric"]'
GRID = '[data-testid="stDataFrame"]'
SETTLED = "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"


@pytest.fixture
def served_two(two_clouds: Path) -> Iterator[str]:
    """`flopledger dashboard` on the two-provider warehouse (read only: no copy needed)."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "dashboard", "--config", str(two_clouds),
         "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, proc)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def _cells(page) -> list[str]:
    """The first table's cells as the grid gives them to screen readers (exact values)."""
    return page.eval_on_selector(
        GRID,
        "grid => Array.from(grid.querySelectorAll('[role=\"gridcell\"]')).map(c => c.innerText)",
    )


def test_overview_shows_both_providers(served_two: str, two_clouds: Path) -> None:
    from playwright.sync_api import sync_playwright

    total = money(Marts(two_clouds).one("SELECT sum(effective_cost) FROM spend_daily"))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1600, "height": 1000})  # the whole table
            page.goto(served_two)
            page.wait_for_selector(METRIC, timeout=30_000)
            page.wait_for_function(SETTLED, timeout=30_000)
            page.get_by_text("By provider", exact=True).wait_for(timeout=30_000)
            assert not page.query_selector('[data-testid="stException"]')
            assert total in page.locator(METRIC).first.inner_text()
            page.wait_for_selector(f"{GRID} [role=gridcell]", state="attached", timeout=30_000)
            cells = _cells(page)  # the by-provider table comes first
            assert "AWS" in cells and "gcp" in cells, cells
            assert format(AWS_BILL, "f") in cells  # every digit, as the CSV carries it
            page.screenshot(path=str(ARTIFACTS / "overview_providers.png"))
            if os.environ.get("FLOPLEDGER_UPDATE_DOCS_IMG"):
                page.screenshot(path=str(REPO / "docs" / "img" / "overview-providers.png"))

            box = page.locator('[data-testid="stMultiSelect"]').filter(has_text="Provider")
            box.locator("input").click()
            page.get_by_role("option", name="AWS").click()
            page.wait_for_url("**?provider=AWS", timeout=30_000)
            page.wait_for_function(SETTLED, timeout=30_000)
            spend = money(AWS_BILL)
            page.wait_for_function(
                f"() => document.querySelector('{METRIC}').innerText.includes('{spend}')",
                timeout=30_000,
            )
        finally:
            browser.close()
