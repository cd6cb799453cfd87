"""Load every page in headless Chromium and check that the charts are drawn.

Runs `flopledger dashboard` on 127.0.0.1 and a free port, against a simulated fleet with
probe, budget and alert rows (so every page has a chart). Screenshots go to
test-artifacts/dashboards/; with FLOPLEDGER_UPDATE_DOCS_IMG=1 the Overview is also saved
to docs/img/overview.png.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import HANG_S
from tests.dashboards.test_dashboard_pages import _add_probes_and_budgets

CHROMIUM = Path("/usr/bin/chromium")
REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts" / "dashboards"
HANG_MS = HANG_S * 1000  # Playwright counts in milliseconds: every wait of a page a hang guard
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
URLS = {
    "overview": "",
    "cost_explorer": "cost_explorer",
    "cost_per_run": "cost_per_run",
    "cost_per_million_tokens": "cost_per_million_tokens",
    "idle_capacity": "idle_capacity",
    "commitments": "commitments",
    "accelerator_efficiency": "accelerator_efficiency",
    "portfolio": "portfolio",
    "budgets_and_alerts": "budgets_and_alerts",
}
CHART = '[data-testid="stVegaLiteChart"]'
# Pixels drawn on each chart's canvas (or marks in its SVG): a chart with only a title has none.
DRAWN = """
(root) => Array.from(root.querySelectorAll('[data-testid="stVegaLiteChart"]')).map((chart) => {
  const svgMarks = chart.querySelectorAll('svg .mark-rect path, svg .mark-line path, svg .mark-symbol path').length;
  const canvas = chart.querySelector('canvas');
  if (!canvas || !canvas.width) return svgMarks;
  const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  let painted = 0;
  for (let i = 3; i < data.length; i += 4) if (data[i] > 0) painted++;
  return painted + svgMarks;
})
"""

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)",
    ),
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_healthy(url: str, proc: subprocess.Popen) -> None:
    """Until the server answers its health check (no deadline: it starts however loaded the
    machine; a hang is pytest-timeout's to end), or fails if it exits."""
    while True:
        assert proc.poll() is None, "flopledger dashboard exited"
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=HANG_S) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(0.3)


@pytest.fixture
def served(fleet_copy: Path) -> Iterator[str]:
    _add_probes_and_budgets(fleet_copy)
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "flopledger.cli.main",
            "dashboard",
            "--config",
            str(fleet_copy),
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, proc)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=HANG_S)


def _check_page(page, url: str, name: str) -> None:
    page.goto(f"{url}/{URLS[name]}")
    page.wait_for_selector(f"{CHART} canvas, {CHART} svg")
    page.wait_for_function(f"() => {DRAWN.strip()}(document).every((n) => n > 0)")
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')")
    assert not page.query_selector('[data-testid="stException"]'), f"{name}: exception shown"
    painted = page.evaluate(DRAWN, page.query_selector("body"))
    assert painted and all(n > 0 for n in painted), f"{name}: charts not drawn {painted}"
    if name == "cost_per_million_tokens":  # the managed inference section, below the charts
        body = page.inner_text("body")
        assert "Managed inference" in body and "Self-hosted against managed" in body, name
    if name == "portfolio":  # the per-class table and the side by side, below the chart
        body = page.inner_text("body")
        assert "Per workload class and family" in body and "side by side" in body, name
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    if name == "overview" and os.environ.get("FLOPLEDGER_UPDATE_DOCS_IMG"):
        page.screenshot(path=str(REPO / "docs" / "img" / "overview.png"))


def test_every_page_draws_its_charts(served: str) -> None:
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, timeout=HANG_MS)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 1000})
            page.set_default_timeout(HANG_MS)  # every wait a hang guard
            for name in URLS:
                _check_page(page, served, name)
        finally:
            browser.close()
