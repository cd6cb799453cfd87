"""Every provider on the pages (issue 18): a GCP fleet beside an AWS segment billed as FOCUS 1.2.

The AWS side is worked by hand from the simulator's rows (simulator/aws.py): `aws_gpus=8` is one
p5.48xlarge (8 x H100) up for the whole 2 days, a Compute Savings Plan committing its plan rate
of 38.40 USD an hour, so every instance-hour is covered: each hour a Purchase row (billed 38.40,
effective 0) and a covered Usage row (billed 0, effective 38.40); and one gp3 volume billed
10.922666667 a day. So:
- AWS billed = effective = 48 x 38.40 + 2 x 10.922666667 = 1,843.20 + 21.845333334
  = 1,865.045333334 USD; no credits (a savings plan is a price, not a credit);
- paid accelerator-hours 48 h x 8 GPUs = 384.0; accelerator resource cost 1,843.20 (the volume
  holds no accelerator: shared cost).
The GCP side is the simulated fleet's: read from the marts. AWS runs are named `aws-NNNNNN`
by the simulator, so the runs a provider shows are checked against the names, not the code.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import date
from decimal import Decimal as D
from pathlib import Path

import pytest

from flopledger.dashboards.filters import Filters, from_url, to_url
from tests.conftest import HANG_S
from tests.dashboards.helpers import Marts, metric, money
from tests.dashboards.test_dashboard_browser import (
    ARGS,
    ARTIFACTS,
    CHROMIUM,
    HANG_MS,
    REPO,
    _free_port,
    _wait_healthy,
)

AWS_BILL = 48 * D("38.40") + 2 * D("10.922666667")
AWS_ACCELERATOR = 48 * D("38.40")
AWS_PAID_HOURS = 48 * 8
# The browser check shares this module's fleet (one build on one worker: tests/scheduling.py).
NO_CHROMIUM = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)",
)


@pytest.fixture(scope="module")
def two(two_clouds: Path) -> Marts:
    return Marts(two_clouds)


def _url(at) -> dict[str, str]:
    return {k: str(v).strip("[]'") for k, v in at.query_params.items()}


def _frame(at, column: str):
    return next(d.value for d in at.dataframe if column in d.value.columns)


def test_overview_shows_each_provider(open_page, two_clouds: Path, two: Marts) -> None:
    assert D("1865.045333334") == AWS_BILL
    at = open_page("overview", config=two_clouds)
    assert "By provider" in [h.value for h in at.subheader]
    rows = _frame(at, "accelerator_cost").set_index("provider")
    assert sorted(rows.index) == ["AWS", "gcp"]
    aws, gcp = rows.loc["AWS"], rows.loc["gcp"]
    assert (aws["billed_cost"], aws["credits"], aws["effective_cost"]) == (AWS_BILL, 0, AWS_BILL)
    assert (aws["paid_accelerator_hours"], aws["accelerator_cost"]) == (
        AWS_PAID_HOURS,
        AWS_ACCELERATOR,
    )
    gcp_spend = two.one("SELECT sum(effective_cost) FROM spend_daily WHERE provider = 'gcp'")
    assert gcp["effective_cost"] == gcp_spend
    # the providers add up to the headline, to the last digit
    assert metric(at, "Spend (label team) (USD)") == money(AWS_BILL + gcp_spend)
    aws_runs, aws_cost = two.rows(
        "SELECT count(*), sum(effective_cost) FROM cost_per_run WHERE run_id LIKE 'aws-%'"
    )[0]
    assert aws_runs > 0 and (aws["runs"], aws["started_run_cost"]) == (aws_runs, aws_cost)
    assert metric(at, "Cost of runs started (USD)") == money(
        aws["started_run_cost"] + gcp["started_run_cost"]
    )
    top_runs = _frame(at, "workload_class")
    assert {p for r, p in zip(top_runs["run_id"], top_runs["provider"], strict=True)
            if r.startswith("aws-")} <= {"AWS"}  # fmt: skip
    assert set(_frame(at, "category")["provider"]) == {"AWS", "gcp"}  # the spend_daily table


def test_provider_filter_from_the_url(open_page, two_clouds: Path, two: Marts) -> None:
    at = open_page("overview", {"provider": "AWS"}, config=two_clouds)
    assert metric(at, "Spend (label team) (USD)") == money(AWS_BILL) == "$1,865.05"
    assert metric(at, "Credits (USD)") == "$0.00"
    aws_cost = two.one("SELECT sum(effective_cost) FROM cost_per_run WHERE run_id LIKE 'aws-%'")
    assert metric(at, "Cost of runs started (USD)") == money(aws_cost)
    assert _url(at) == {"provider": "AWS"}  # kept in the URL, as chosen

    at = open_page("idle", {"provider": "AWS"}, config=two_clouds)
    assert metric(at, "Paid accelerator-hours") == f"{AWS_PAID_HOURS:,.1f}" == "384.0"
    assert metric(at, "Accelerator resource cost (USD)") == money(AWS_ACCELERATOR)
    # the savings plan was used to the cent: no unused commitment (GCP's is not AWS's)
    assert "Unused commitment cost (USD)" not in [m.label for m in at.metric]

    at = open_page("runs", {"provider": "AWS"}, config=two_clouds)
    runs = at.dataframe[0].value
    assert len(runs) and all(r.startswith("aws-") for r in runs["run_id"])
    assert set(runs["provider"]) == {"AWS"}


def test_unknown_providers_in_the_url_are_dropped(open_page, two_clouds: Path) -> None:
    at = open_page("overview", {"provider": ["Nimbus", "gcp"]}, config=two_clouds)
    assert _url(at) == {"provider": "gcp"}
    assert at.multiselect(key="f_provider").value == ["gcp"]
    # (choosing in the widget writes the URL: the browser test does it in Chromium; AppTest
    # does not redraw the sidebar when a sidebar widget changes under st.navigation)


def test_idle_page_breaks_down_by_provider(open_page, two_clouds: Path, two: Marts) -> None:
    at = open_page("idle", config=two_clouds)
    by = _frame(at, "provider").set_index("provider")
    assert by.loc["AWS", "accelerator_cost"] == AWS_ACCELERATOR
    assert by.loc["AWS", "paid_accelerator_hours"] == AWS_PAID_HOURS
    gcp_idle = two.one(
        "SELECT sum(unallocated_idle_cost) FROM idle_capacity WHERE provider = 'gcp'"
    )
    assert by.loc["gcp", "unallocated_idle_cost"] == gcp_idle
    assert len(at.get("vega_lite_chart")) == 4  # by provider, type, project; heatmap


def test_one_provider_looks_as_before(open_page) -> None:
    """The GCP-only fleet: no provider filter, breakdown or column, and ?provider= is dropped."""
    at = open_page("overview", {"provider": "gcp"})
    assert "Provider" not in [m.label for m in at.multiselect]
    assert "By provider" not in [h.value for h in at.subheader]
    assert all("provider" not in d.value.columns for d in at.dataframe)
    assert not at.query_params  # nothing to choose: a clean URL
    at = open_page("runs")
    assert "provider" not in at.dataframe[0].value.columns


def test_glossary_explains_provider(open_page) -> None:
    at = open_page("glossary")
    assert "Provider" in [h.value for h in at.header]
    text = "\n".join(m.value for m in at.markdown)
    assert "ProviderName" in text and "reporting currency" in text


def test_provider_round_trips_through_the_url() -> None:
    lo, hi = date(2026, 10, 1), date(2026, 10, 2)
    chosen = Filters(lo, hi, provider=("AWS", "gcp"), team=("llm",))
    url = to_url(chosen, lo, hi)
    assert url == {"provider": ["AWS", "gcp"], "team": ["llm"]}
    options = {"provider": ["AWS", "gcp"], "team": ["llm"]}
    assert from_url(url, options, lo, hi) == chosen
    assert from_url({"provider": ["' OR 1=1 --"]}, options, lo, hi) == Filters(lo, hi)


def test_explorer_groups_every_provider(open_page, two_clouds: Path, two: Marts) -> None:
    """The explorer's facts hold the FOCUS rows too: grouped by provider (its default), AWS is
    its whole bill and the groups add up to spend_daily's effective cost."""
    at = open_page("explorer", config=two_clouds)
    series = at.dataframe[0].value
    by = series.groupby("Provider")["effective_cost"].sum()
    assert by["AWS"] == AWS_BILL
    assert by.sum() == two.one("SELECT sum(effective_cost) FROM spend_daily")


def test_chargeback_splits_each_providers_bill(open_page, two_clouds: Path) -> None:
    """AWS's month: its instance-hours (48 x 38.40 = 1,843.20) went to runs and unallocated
    idle, its volume (2 x 10.922666667 = 21.845333334, no accelerator) is shared cost, and the
    savings plan was used to the cent (no unused commitment)."""
    at = open_page("chargeback", config=two_clouds)
    by = _frame(at, "provider").set_index("provider")
    aws = by.loc["AWS"]
    assert (aws["billed_cost"], aws["credits"], aws["effective_cost"]) == (AWS_BILL, 0, AWS_BILL)
    assert aws["shared_cost"] == 2 * D("10.922666667")
    assert aws["run_cost"] + aws["unallocated_idle_cost"] == AWS_ACCELERATOR
    assert aws["unused_commitment_cost"] == aws["unused_reservation_cost"] == 0
    assert metric(at, "Chargeback (USD)") == money(by["effective_cost"].sum())


METRIC = '[data-testid="stMetric"]'
GRID = '[data-testid="stDataFrame"]'
SETTLED = "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"


@pytest.fixture
def served_two(two_clouds: Path) -> Iterator[str]:
    """`flopledger dashboard` on the two-provider warehouse (read only: no copy needed)."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "flopledger.cli.main", "dashboard", "--config", str(two_clouds),
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
        proc.wait(timeout=HANG_S)


def _cells(page) -> list[str]:
    """The first table's cells as the grid gives them to screen readers (exact values)."""
    return page.eval_on_selector(
        GRID,
        "grid => Array.from(grid.querySelectorAll('[role=\"gridcell\"]')).map(c => c.innerText)",
    )


@pytest.mark.browser
@NO_CHROMIUM
def test_overview_shows_both_providers_in_chromium(served_two: str, two_clouds: Path) -> None:
    """Chromium: both providers' rows in the breakdown, and choosing a provider in the sidebar
    writes `?provider=AWS` and shows AWS's bill. The screenshot goes to test-artifacts/
    dashboards/; with FLOPLEDGER_UPDATE_DOCS_IMG=1 also to docs/img/overview-providers.png
    (docs/focus.md shows it)."""
    from playwright.sync_api import sync_playwright

    total = money(Marts(two_clouds).one("SELECT sum(effective_cost) FROM spend_daily"))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, timeout=HANG_MS)
        try:
            page = browser.new_page(viewport={"width": 1600, "height": 1000})  # the whole table
            page.set_default_timeout(HANG_MS)  # every wait a hang guard
            page.goto(served_two)
            page.wait_for_selector(METRIC)
            page.wait_for_function(SETTLED)
            page.get_by_text("By provider", exact=True).wait_for()
            assert not page.query_selector('[data-testid="stException"]')
            assert total in page.locator(METRIC).first.inner_text()
            page.wait_for_selector(f"{GRID} [role=gridcell]", state="attached")
            cells = _cells(page)  # the by-provider table comes first
            assert "AWS" in cells and "gcp" in cells, cells
            assert format(AWS_BILL, "f") in cells  # every digit, as the CSV carries it
            page.screenshot(path=str(ARTIFACTS / "overview_providers.png"))
            if os.environ.get("FLOPLEDGER_UPDATE_DOCS_IMG"):
                page.screenshot(path=str(REPO / "docs" / "img" / "overview-providers.png"))

            box = page.locator('[data-testid="stMultiSelect"]').filter(has_text="Provider")
            box.locator("input").click()
            page.get_by_role("option", name="AWS").click()
            page.wait_for_url("**?provider=AWS")
            page.wait_for_function(SETTLED)
            spend = money(AWS_BILL)
            page.wait_for_function(
                f"() => document.querySelector('{METRIC}').innerText.includes('{spend}')",
            )
        finally:
            browser.close()
