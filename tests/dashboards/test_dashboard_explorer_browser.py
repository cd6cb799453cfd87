"""The cost explorer and the Glossary in headless Chromium, as a finance reader opens them: for
every grouping (a shared link `?group=...`) the explorer's total is the effective cost, and the
Glossary defines each figure the pages link to."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from flopledger.dashboards.views.explorer import DIMENSIONS
from flopledger.figures import FIGURES
from tests.dashboards.helpers import Marts, money
from tests.dashboards.test_dashboard_browser import (  # noqa: F401 - the fixture and marks
    ARGS,
    ARTIFACTS,
    CHROMIUM,
    HANG_MS,
    pytestmark,
    served,
)

METRIC = '[data-testid="stMetric"]'


def _effective(config: Path) -> Decimal:
    return Marts(config).one("SELECT sum(effective_cost) FROM spend_daily")


def _settled(page) -> None:
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')")


# The first metric once it shows `total`: on a busy machine the status widget may not have
# appeared yet when _settled looks, and a rerun replaces the page's elements one by one.
FIRST_METRIC_SHOWS = f"""total => {{
    const first = document.querySelector('{METRIC}');
    return first && first.innerText.startsWith('Effective cost, ') && first.innerText.includes(total);
}}"""


def _shown(page, total: str) -> None:
    """Waits (to the hang guard) for the first metric to show `total`; the assertions after
    say what it showed if it never did."""
    try:
        page.wait_for_function(FIRST_METRIC_SHOWS, arg=total)
    except Exception:  # noqa: BLE001 - the assertions below report what was shown
        return


def test_every_grouping_totals_the_effective_cost(served: str, fleet_copy: Path) -> None:  # noqa: F811
    from playwright.sync_api import sync_playwright

    total = money(_effective(fleet_copy))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, timeout=HANG_MS)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 1000})
            page.set_default_timeout(HANG_MS)  # every wait a hang guard
            # The entry script first: until it has run once, the server does not know its
            # navigation and would run a page file on its own.
            page.goto(served)
            page.wait_for_selector(METRIC)
            _settled(page)
            for dimension in DIMENSIONS:
                page.goto(f"{served}/cost_explorer?group={dimension}")
                try:
                    page.wait_for_selector(METRIC)
                except Exception:
                    page.screenshot(path=str(ARTIFACTS / f"explorer_{dimension}_failed.png"))
                    raise
                _settled(page)
                _shown(page, total)
                assert not page.query_selector('[data-testid="stException"]'), dimension
                first = page.query_selector(METRIC)
                assert first is not None
                text = first.inner_text()
                assert text.startswith("Effective cost, "), (dimension, text)
                assert total in text, (dimension, text, total)
                if dimension == "sku_description":
                    page.screenshot(path=str(ARTIFACTS / "cost_explorer_sku.png"), full_page=True)
            page.goto(f"{served}/chargeback")
            page.wait_for_selector(METRIC)
            _settled(page)
            body = page.inner_text("body")
            assert "Books close" in body and f"Chargeback (USD)\n\n{total}" in body, body[:2000]
            page.goto(f"{served}/glossary")
            page.wait_for_selector("h1")
            _settled(page)
            names = [f.name for f in FIGURES]
            # Rendering can outlast the status widget on a loaded machine: wait for the text.
            page.wait_for_function(
                "(names) => names.every(n => document.body.innerText.includes(n))",
                arg=names,
            )
            body = page.inner_text("body")
            assert all(name in body for name in names)
        finally:
            browser.close()
