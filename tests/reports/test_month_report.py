"""The month-close report on a simulated fleet spanning two months (2026-10-30 to 2026-11-01,
8 GPUs, no TPU, no telemetry), run through the real pipeline once per module.

Its totals must equal spend_monthly (invoice month) and team_chargeback (calendar month)
exactly; a late October row (12.34 USD, no credits, no resource: shared cost) exported on
2026-11-20 must produce revision 2 whose changes name +12.34 on the invoice, the books' shared
cost and the chargeback total.
"""

from __future__ import annotations

import csv
import json
import os
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import pytest

from flopledger.cli.main import main
from flopledger.models import query_sql
from flopledger.reports.month import (
    SPLIT_PARTS,
    ReportError,
    closed_month,
    months_to_write,
    parse_month,
    read_month,
)
from tests.conftest import REPO, billing_row, write_ndjson

ACCOUNT = "01A3F5-7C2B9D-4E8F10"  # the simulator's billing account
LATE = Decimal("12.34")
D0, D1 = Decimal(0), Decimal("1.50")


def _run(config: Path) -> None:
    from flopledger.pipelines.runner import run_pipeline
    from flopledger.settings import load_config

    report = run_pipeline(load_config(config), config)
    assert report.succeeded, report.failures


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from flopledger.simulator import simulate

    out = tmp_path_factory.mktemp("fleet")
    simulate(
        out,
        gpus=8,
        tpu_chips=0,
        days=3,
        seed=1,
        start=parse_month("2026-10").replace(day=30),
        telemetry=False,
    )
    _run(out / "flopledger.yaml")
    return out


def _rows(fleet: Path, sql: str, params: dict | None = None) -> list[dict]:
    from flopledger.settings import load_config
    from flopledger.warehouse import open_warehouse

    return (
        open_warehouse(load_config(fleet / "flopledger.yaml").warehouse)
        .query(sql, params)
        .to_pylist()
    )


def _report(fleet: Path, month: str):  # type: ignore[no-untyped-def]
    return read_month(lambda sql, p: _rows(fleet, sql, p), parse_month(month))


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open() as f:
        return list(csv.DictReader(f))


def test_months_close_after_the_settle_days(tmp_path: Path) -> None:
    # October ends at 2026-11-01 00:00; with 5 settle days its report is due from 11-06 00:00.
    assert closed_month(datetime(2026, 11, 5, 23, 59), 5) == parse_month("2026-09")
    assert closed_month(datetime(2026, 11, 6, 0, 0), 5) == parse_month("2026-10")
    assert closed_month(datetime(2027, 1, 1, 7), 0) == parse_month("2026-12")
    # A month already reported is checked again for late rows; a month not closed is not.
    out = tmp_path / "out"
    for key in ("2026-07", "2026-12", "notes"):
        (out / key).mkdir(parents=True)
        (out / key / "manifest.json").write_text("{}")
    assert months_to_write(out, datetime(2026, 11, 6), 5) == [
        parse_month("2026-07"),
        parse_month("2026-10"),
    ]
    for bad in ("2026-13", "2026-1", "october", "2026-10-01", "", "0000-01"):
        with pytest.raises(ReportError, match="YYYY-MM"):
            parse_month(bad)


def test_totals_equal_spend_monthly_and_team_chargeback(fleet: Path) -> None:
    for month in ("2026-10", "2026-11"):
        report = _report(fleet, month)
        ym = month.replace("-", "")
        invoice = _rows(
            fleet,
            "SELECT billing_account_id, currency, sum(effective_cost) AS usd, "
            "sum(effective_cost_in_currency) AS cur FROM spend_monthly WHERE invoice_month = ? "
            "GROUP BY ALL",
            [ym],
        )
        assert invoice and {
            (r["billing_account_id"], r["currency"], r["usd"], r["cur"]) for r in invoice
        } == {
            (
                r["billing_account_id"],
                r["currency"],
                r["invoiced_cost"],
                r["effective_cost_in_currency"],
            )
            for r in report.invoice
        }
        assert report.invoice_total() == sum(r["usd"] for r in invoice)
        charged = _rows(
            fleet,
            "SELECT team, total_cost FROM team_chargeback WHERE month = CAST(? AS DATE)",
            [f"{month}-01"],
        )
        reported = {r["team"]: r for r in report.chargeback}
        assert charged and all(
            reported[r["team"]]["chargeback"] == r["total_cost"] for r in charged
        )
        # A team charged only the month before stands with 0 and its earlier total.
        extra = set(reported) - {r["team"] for r in charged}
        assert all(
            reported[t]["chargeback"] == 0 and reported[t]["previous_chargeback"] for t in extra
        )
        assert report.chargeback_total() == sum(r["total_cost"] for r in charged)
        for r in report.chargeback:  # the parts shown add up to what the team is charged
            shown = ("run_cost", "idle_cost_shared", "unused_commitment_shared",
                     "unused_reservation_shared", "shared_cost")  # fmt: skip
            assert sum(r[k] for k in shown) == r["chargeback"]
        # The books' split of each account adds up to its invoice figure in USD.
        for split in report.split:
            parts = sum(split[part] for part in SPLIT_PARTS)
            inv = next(
                r for r in report.invoice if r["billing_account_id"] == split["billing_account_id"]
            )
            assert parts == split["effective_cost"] == inv["invoiced_cost"]


def test_the_command_writes_csv_and_a_page_then_revises_after_a_late_row(
    fleet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = str(fleet / "flopledger.yaml")
    out = fleet / "reports"
    assert (
        main(["report", "month", "--config", config, "--month", "2026-10", "--out", str(out)]) == 0
    )
    r1 = out / "2026-10" / "r1"
    invoice_csv = _csv(r1 / "invoice.csv")
    # Money exact: the CSV carries the mart's nano-dollars as plain decimal text.
    expected = _rows(
        fleet, "SELECT sum(effective_cost) AS e FROM spend_monthly WHERE invoice_month = '202610'"
    )[0]["e"]
    assert sum(Decimal(r["invoiced_cost"]) for r in invoice_csv) == expected
    assert all("E" not in r["invoiced_cost"] for r in invoice_csv)
    chargeback_csv = _csv(r1 / "chargeback.csv")
    assert (
        sum(Decimal(r["chargeback"]) for r in chargeback_csv)
        == _rows(
            fleet,
            "SELECT sum(total_cost) AS t FROM team_chargeback WHERE month = DATE '2026-10-01'",
        )[0]["t"]
    )
    page = (r1 / "month-2026-10-r1.html").read_text()
    assert "<svg" in page and "http://" not in page.replace(
        'xmlns="http://www.w3.org/2000/svg"', ""
    )
    assert "Revision 2" not in page and "<script" not in page
    # A rerun with nothing changed writes nothing.
    assert (
        main(["report", "month", "--config", config, "--month", "2026-10", "--out", str(out)]) == 0
    )
    assert "unchanged since revision 1" in capsys.readouterr().out
    assert not (out / "2026-10" / "r2").exists()

    before = _report(fleet, "2026-10")
    late = billing_row(
        hour="2026-10-31 10",
        sku="Cloud Storage Standard in Americas",
        resource=None,
        cost=str(LATE),
        project="acme-llm-prod",
        export_time="2026-11-20 04:00:00 UTC",
        billing_account_id=ACCOUNT,
    )
    write_ndjson(fleet / "billing" / "2026-11-20" / "late.ndjson", [late])
    _run(fleet / "flopledger.yaml")
    assert (
        main(["report", "month", "--config", config, "--month", "2026-10", "--out", str(out)]) == 0
    )
    printed = capsys.readouterr().out
    assert "revision 2 written" in printed
    r2 = out / "2026-10" / "r2"
    changes = {r["figure"]: Decimal(r["change"]) for r in _csv(r2 / "changes.csv")}
    # Hand-worked: the late row has no credits and no resource, so it is 12.34 of effective
    # cost on the October invoice, all of it shared cost, all of it charged to teams.
    assert changes["invoice effective_cost"] == LATE
    assert changes[f"invoice {ACCOUNT} USD effective_cost"] == LATE
    assert changes[f"books {ACCOUNT} shared_cost"] == LATE
    assert changes["chargeback total_cost"] == LATE
    after = _report(fleet, "2026-10")
    assert after.invoice_total() - before.invoice_total() == LATE
    page2 = (r2 / "month-2026-10-r2.html").read_text()
    assert "Revision 2" in page2 and "+12.34" in page2
    manifest = json.loads((out / "2026-10" / "manifest.json").read_text())
    assert [r["revision"] for r in manifest["revisions"]] == [1, 2]
    assert Decimal(manifest["revisions"][1]["totals"]["invoice effective_cost"]) == (
        Decimal(manifest["revisions"][0]["totals"]["invoice effective_cost"]) + LATE
    )
    assert (r1 / "month-2026-10-r1.html").read_text() == page  # the first report is kept


def test_bad_input_is_one_line(
    fleet: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = str(fleet / "flopledger.yaml")
    with pytest.raises(SystemExit) as refused:  # a bad argument: argparse's one line, exit 2
        main(["report", "month", "--config", config, "--month", "2026-13"])
    assert refused.value.code == 2
    assert "month must be YYYY-MM" in capsys.readouterr().err
    assert (
        main(["report", "month", "--config", config, "--month", "2025-01", "--out", str(tmp_path)])
        == 1
    )
    assert "no billing rows for 2025-01" in capsys.readouterr().err
    (tmp_path / "2026-10").mkdir()
    (tmp_path / "2026-10" / "manifest.json").write_text("{not json")
    assert (
        main(["report", "month", "--config", config, "--month", "2026-10", "--out", str(tmp_path)])
        == 1
    )
    err = capsys.readouterr().err.strip()
    assert "manifest.json: not a readable manifest" in err and len(err.splitlines()) == 1


def test_an_open_month_is_refused_unless_provisional_and_never_becomes_a_revision(
    fleet: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """November 2026 ends at 12-01 00:00; with 5 settle days it closes at 12-06 00:00.

    On Nov 15 `report month --month 2026-11` is refused in one line and writes nothing; with
    --provisional it writes a page marked provisional into 2026-11/provisional/ and no manifest.
    On Dec 6 the report of the closed month is revision 1 (not a revision of the provisional
    page), and the schedule's asset given an open month by its tag writes nothing either."""
    import dagster as dg

    import flopledger.cli.commands.report as report_command
    from flopledger.pipelines.month_report import MONTH_TAG, month_report_asset
    from flopledger.pipelines.resources import Flopledger
    from flopledger.pipelines.run_tags import NOW_TAG

    config = str(fleet / "flopledger.yaml")
    argv = ["report", "month", "--config", config, "--month", "2026-11", "--out", str(tmp_path)]
    monkeypatch.setattr(report_command, "wall_clock", lambda: datetime(2026, 11, 15, 9))
    assert main(argv) == 1
    err = capsys.readouterr().err.strip()
    assert err == (
        "flopledger report: 2026-11 is not closed until 2026-12-06 00:00 UTC "
        "(month_report.settle_days: 5); pass --provisional for a provisional page"
    )
    assert not (tmp_path / "2026-11").exists()

    assert main([*argv, "--provisional"]) == 0
    assert "PROVISIONAL (not closed until 2026-12-06 00:00 UTC)" in capsys.readouterr().out
    month_dir = tmp_path / "2026-11"
    assert sorted(p.name for p in month_dir.iterdir()) == ["provisional"]  # no manifest, no r1
    page = (month_dir / "provisional" / "month-2026-11-provisional.html").read_text()
    assert "<title>Month close 2026-11 (PROVISIONAL)</title>" in page
    assert "id=provisional" in page and "closes 2026-12-06 00:00 UTC" in page
    assert "revision 1" not in page
    assert (month_dir / "provisional" / "invoice.csv").is_file()

    # One second before the close it is still refused; at the close it is revision 1.
    monkeypatch.setattr(report_command, "wall_clock", lambda: datetime(2026, 12, 5, 23, 59, 59))
    assert main(argv) == 1
    assert "not closed until 2026-12-06 00:00 UTC" in capsys.readouterr().err
    monkeypatch.setattr(report_command, "wall_clock", lambda: datetime(2026, 12, 6))
    assert main(argv) == 0
    assert "2026-11: report 1 written" in capsys.readouterr().out
    manifest = json.loads((month_dir / "manifest.json").read_text())
    assert [r["revision"] for r in manifest["revisions"]] == [1]

    # The asset, told by its tag to write November on Nov 15, writes nothing.
    result = dg.materialize(
        [month_report_asset],
        resources={"flopledger": Flopledger(config_path=config)},
        tags={NOW_TAG: "2026-11-15T09:00:00", MONTH_TAG: "2026-11"},
    )
    meta = result.asset_materializations_for_node("month_report")[0].metadata
    assert meta["2026-11"].value == "not closed until 2026-12-06 00:00 UTC, nothing written"
    assert not (fleet / "reports" / "2026-11").exists()


def test_the_asset_writes_the_closed_month_and_raises_an_alert_with_its_link(fleet: Path) -> None:
    """The schedule's asset at 2026-12-06 07:00 (5 settle days after November's end) writes
    November and stores a month_report alert, which the alert_notifier sensor sends."""
    import dagster as dg

    from flopledger.pipelines.month_report import build_schedule, month_report_asset
    from flopledger.pipelines.resources import Flopledger
    from flopledger.pipelines.run_tags import NOW_TAG
    from flopledger.settings import SchedulesConfig

    schedule = build_schedule(SchedulesConfig())
    context = dg.build_schedule_context(scheduled_execution_time=datetime(2026, 12, 6, 7))
    request = schedule.evaluate_tick(context).run_requests[0]
    assert request.tags[NOW_TAG] == "2026-12-06T07:00:00"
    result = dg.materialize(
        [month_report_asset],
        resources={"flopledger": Flopledger(config_path=str(fleet / "flopledger.yaml"))},
        tags=request.tags,
    )
    assert result.success
    # October, reported (and revised) by the command test, is checked again: nothing changed.
    meta = result.asset_materializations_for_node("month_report")[0].metadata
    assert set(meta) == {"2026-10", "2026-11"}
    assert meta["2026-10"].value.startswith("unchanged (revision 2)")
    assert meta["2026-11"].value.startswith("written (revision 1)")
    alerts = _rows(
        fleet,
        query_sql("alerts_raised_between"),
        {"start": datetime(2026, 12, 6), "end": datetime(2026, 12, 7)},
    )
    mine = [a for a in alerts if a["kind"] == "month_report"]
    assert [a["alert_id"] for a in mine] == ["month_report:2026-11:r1"]
    details = json.loads(
        _rows(fleet, "SELECT details FROM alerts WHERE alert_id = 'month_report:2026-11:r1'")[0][
            "details"
        ]
    )
    page = Path(details["link"])
    assert page.name == "month-2026-11-r1.html" and page.is_file()
    assert page.parent.parent.parent == fleet / "reports"  # month_report.out, beside the config
    assert details["link"] in mine[0]["message"]


def test_the_asset_reads_the_published_snapshot_not_the_live_tables(fleet: Path) -> None:
    """A run whose blocking checks fail leaves its tables in the live warehouse and withholds
    the snapshot. Stand-in: 1,000.00 USD added to November's invoice in the live spend_monthly
    only. The asset on Dec 7 reads the snapshot, where November still equals revision 1 (the
    previous test's), so it writes nothing; reading the live tables it would write revision 2
    with +1,000.00 from books nobody checked."""
    import dagster as dg

    from flopledger.pipelines.month_report import month_report_asset
    from flopledger.pipelines.resources import Flopledger
    from flopledger.pipelines.run_tags import NOW_TAG
    from flopledger.settings import load_config
    from flopledger.warehouse import open_warehouse

    warehouse = open_warehouse(load_config(fleet / "flopledger.yaml").warehouse)
    bump = "UPDATE spend_monthly SET effective_cost = effective_cost + $d WHERE invoice_month = '202611'"
    warehouse.execute(bump, {"d": Decimal("1000")})
    try:
        result = dg.materialize(
            [month_report_asset],
            resources={"flopledger": Flopledger(config_path=str(fleet / "flopledger.yaml"))},
            tags={NOW_TAG: "2026-12-07T07:00:00"},
        )
    finally:
        warehouse.execute(bump, {"d": Decimal("-1000")})
    meta = result.asset_materializations_for_node("month_report")[0].metadata
    assert meta["2026-11"].value.startswith("unchanged (revision 1)")
    assert not (fleet / "reports" / "2026-11" / "r2").exists()


@pytest.mark.browser
@pytest.mark.skipif(not Path("/usr/bin/chromium").exists(), reason="needs /usr/bin/chromium")
def test_the_page_renders_in_chromium(fleet: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """November's provisional page on Nov 15 (its banner shown), then its report on Dec 6."""
    from playwright.sync_api import sync_playwright

    import flopledger.cli.commands.report as report_command

    out = fleet / "browser"
    argv = ["report", "month", "--config", str(fleet / "flopledger.yaml"), "--month", "2026-11"]
    monkeypatch.setattr(report_command, "wall_clock", lambda: datetime(2026, 11, 15, 9))
    assert main([*argv, "--out", str(out), "--provisional"]) == 0
    provisional = out / "2026-11" / "provisional" / "month-2026-11-provisional.html"
    monkeypatch.setattr(report_command, "wall_clock", lambda: datetime(2026, 12, 6, 7))
    assert main([*argv, "--out", str(out)]) == 0
    page_path = out / "2026-11" / "r1" / "month-2026-11-r1.html"
    fetched: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.on("request", lambda r: fetched.append(r.url))
            page.goto(provisional.as_uri())
            assert page.is_visible("#provisional")
            banner = page.inner_text("#provisional")
            assert banner.startswith("Provisional: 2026-11 is not closed; it closes 2026-12-06")
            assert "Month close: 2026-11 (provisional)" in page.inner_text("h1")
            page.goto(page_path.as_uri())
            assert page.query_selector("#provisional") is None
            text = page.inner_text("body")
            assert "Month close: 2026-11" in text and "Invoice reconciliation" in text
            assert "Chargeback total" in text and "Biggest movers" in text
            bars = page.evaluate(
                "() => Array.from(document.querySelectorAll('svg rect')).filter("
                "r => r.getBoundingClientRect().width > 0).length"
            )
            assert bars >= 3
            shots = REPO / "test-artifacts" / "reports"
            shots.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(shots / "month-report.png"), full_page=True)
            if os.environ.get("FLOPLEDGER_UPDATE_DOCS_IMG"):  # as the dashboard browser test
                page.screenshot(
                    path=str(REPO / "docs" / "img" / "month-report.png"), full_page=True
                )
        finally:
            browser.close()
    assert fetched == [provisional.as_uri(), page_path.as_uri()]  # nothing but the pages


def test_the_schedule_and_job_load_with_the_workspace(tmp_path: Path) -> None:
    """The daemon loads them from the definitions: cron from the config, UTC, the writer job."""
    from flopledger.pipelines.asset_jobs import WAREHOUSE_TAG
    from flopledger.pipelines.definitions import build_definitions

    config = tmp_path / "flopledger.yaml"
    config.write_text(
        "history_start: 2026-10-01\nwarehouse: {path: w.duckdb}\n"
        'schedules: {month_report: "30 8 * * *"}\nmonth_report: {settle_days: 3}\n'
    )
    defs = build_definitions(str(config))
    schedule = defs.get_schedule_def("month_report_daily")
    assert (schedule.cron_schedule, schedule.execution_timezone) == ("30 8 * * *", "UTC")
    assert schedule.job_name == "month_close"
    job = defs.resolve_job_def("month_close")
    assert job.tags[WAREHOUSE_TAG] == "writer"  # one writer at a time, as every job
    assert not (tmp_path / "w.duckdb").exists()


def test_two_accounts_two_currencies_hand_worked(project_dir: Path) -> None:
    """Account A (USD): an H100 row, 10.00 with a -2.00 credit, no run: 8.00 unallocated idle.
    Account B (EUR at 0.9 per USD): a storage row without a resource, 9.00 EUR with a -0.90 EUR
    credit: 8.10 EUR on its invoice, 10.00 - 1.00 = 9.00 USD, all shared cost. October's
    invoice: 17.00 USD; no run, so chargeback carries 8.00 idle and 9.00 shared, 17.00 in all."""
    from tests.conftest import FileBooks, credit

    books = FileBooks(project_dir).build(
        [
            billing_row(cost="10.00", credits=[credit("-2.00")], billing_account_id="A-USD"),
            billing_row(
                sku="Standard Storage US Multi-region",
                resource=None,
                cost="9.00",
                credits=[credit("-0.90")],
                currency="EUR",
                rate="0.9",
                billing_account_id="B-EUR",
            ),
        ],
        [],
    )
    report = read_month(lambda sql, p: books.rows(sql, p), parse_month("2026-10"))
    invoice = {r["billing_account_id"]: r for r in report.invoice}
    assert invoice["A-USD"]["effective_cost_in_currency"] == Decimal("8.00")
    assert invoice["A-USD"]["invoiced_cost"] == Decimal("8.00")
    assert (invoice["B-EUR"]["currency"], invoice["B-EUR"]["effective_cost_in_currency"]) == (
        "EUR",
        Decimal("8.10"),
    )
    assert invoice["B-EUR"]["billed_cost"] == Decimal("10.00")
    assert invoice["B-EUR"]["invoiced_cost"] == Decimal("9.00")
    split = {r["billing_account_id"]: r for r in report.split}
    assert (split["A-USD"]["run_cost"], split["A-USD"]["unallocated_idle_cost"]) == (
        0,
        Decimal("8"),
    )
    assert (split["B-EUR"]["shared_cost"], split["B-EUR"]["unallocated_idle_cost"]) == (
        Decimal("9"),
        0,
    )
    assert report.invoice_total() == report.chargeback_total() == Decimal("17.00")


def test_hostile_names_are_text_in_the_page_and_the_csv(tmp_path: Path) -> None:
    """A team or experiment named like markup or a spreadsheet formula is shown, never run."""
    from flopledger.reports.month import MonthReport, write_month

    evil = '=HYPERLINK("http://x.invalid")<script>alert(1)</script>'
    month = parse_month("2026-10")
    money = {"run_cost": D1, "idle_cost_shared": D0, "unused_commitment_shared": D0,
             "unused_reservation_shared": D0, "shared_cost": D0, "chargeback": D1}  # fmt: skip
    report = MonthReport(
        month=month,
        invoice=[],
        split=[],
        idle={},
        chargeback=[{"team": evil, "policy": "even", **money, "previous_chargeback": None}],
        runs=[],
        groups=[
            {"grouping": "experiment", "name": evil, "month": month, "started_run_cost": D1,
             "tokens": 0, "runs": 1},
        ],
        budgets=[],
        alerts=[],
    )  # fmt: skip
    written = write_month(report, tmp_path, datetime(2026, 11, 6, 7))
    page = written.page.read_text()
    assert "<script>alert" not in page and "&lt;script&gt;" in page
    rows = _csv(written.folder / "chargeback.csv")
    assert rows[0]["team"] == "'" + evil and rows[0]["chargeback"] == "1.50"
    assert _csv(written.folder / "movers.csv")[0]["name"] == "'" + evil
