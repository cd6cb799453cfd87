"""The plain parts: URL filters, chart specs (axis units, USD), the CLI command."""

from __future__ import annotations

from datetime import date
from decimal import Decimal as D
from pathlib import Path

import pandas as pd

from flopledger.cli.commands.dashboard import streamlit_command
from flopledger.cli.main import build_parser
from flopledger.dashboards import charts
from flopledger.dashboards.components import csv_text, money
from flopledger.dashboards.filters import Filters, from_url, to_url
from tests.conftest import HANG_S

LO, HI = date(2026, 10, 1), date(2026, 10, 31)
OPTIONS = {
    "team": ["llm", "eu-llm"],
    "project": ["p"],
    "workload": ["pretraining"],
    "accelerator": ["H100-80GB"],
}


def test_filters_round_trip_through_the_url() -> None:
    chosen = Filters(
        date(2026, 10, 3), date(2026, 10, 9), team=("llm", "eu-llm"), accelerator=("H100-80GB",)
    )
    url = to_url(chosen, LO, HI)
    assert url == {
        "from": ["2026-10-03"],
        "to": ["2026-10-09"],
        "team": ["llm", "eu-llm"],
        "accelerator": ["H100-80GB"],
    }
    assert from_url(url, OPTIONS, LO, HI) == chosen
    assert to_url(Filters(LO, HI), LO, HI) == {}  # the default view keeps a clean URL


def test_unknown_values_and_bad_dates_fall_back_to_the_default() -> None:
    url = {
        "team": ["nobody", "llm"],
        "from": ["2026-13-01"],
        "to": ["2027-01-01"],
        "project": ["' OR 1=1 --"],
    }
    assert from_url(url, OPTIONS, LO, HI) == Filters(
        LO, HI, team=("llm",)
    )  # to clamped to the last day
    assert from_url({"from": ["2026-10-20"], "to": ["2026-10-02"]}, OPTIONS, LO, HI) == Filters(
        LO, HI
    )


def _axes(chart) -> dict[str, str]:
    enc = chart.to_dict()["encoding"]
    return {ch: enc[ch].get("title", "") for ch in ("x", "y") if ch in enc}


def test_charts_say_their_units() -> None:
    spend = pd.DataFrame(
        {
            "day": pd.to_datetime(["2026-10-01"]),
            "category": ["accelerator"],
            "effective_cost": [1.0],
        }
    )
    assert _axes(charts.spend_trend(spend)) == {"x": "Day (UTC)", "y": "Effective cost (USD)"}
    hours = pd.DataFrame(
        {
            "hour": pd.to_datetime(["2026-10-01 03:00"]),
            "resource_name": ["a"],
            "run_cost": [2.0],
        }
    )
    assert _axes(charts.run_hours(hours)) == {"x": "Hour (UTC)", "y": "Cost of runs (USD)"}
    heat = pd.DataFrame(
        {
            "weekday": [4],
            "hour_of_day": [3],
            "unallocated_idle_share_of_hours": [0.5],
            "unallocated_idle_cost": [9.0],
        }
    )
    spec = charts.idle_heatmap(heat).to_dict()
    assert spec["mark"]["type"] == "rect" and spec["encoding"]["x"]["title"] == "Hour of day (UTC)"
    tokens = pd.DataFrame({"dimension_value": ["m"], "cost_per_million_tokens": [1.5]})
    assert _axes(charts.tokens_bars(tokens, "Model"))["x"] == "Cost per million tokens (USD)"


def test_money_is_exact_in_csv_and_rounded_on_screen() -> None:
    frame = pd.DataFrame(
        {"run_id": ["a", "b", "c"], "effective_usd": [D("1234567890.123456789"), D("0E-9"), None]}
    )
    # every digit, never an exponent (str(Decimal("0E-9")) would write 0E-9)
    assert csv_text(frame).splitlines() == [
        "run_id,effective_usd",
        "a,1234567890.123456789",
        "b,0.000000000",
        "c,",
    ]
    assert money(D("1234567890.125000001")) == "$1,234,567,890.13"
    assert money(D("-0.004")) == "-$0.00"


def test_a_formula_like_name_is_text_in_the_csv_and_money_stays_a_number() -> None:
    """Issue 36: a team named `=HYPERLINK(...)` or `@SUM(...)` is written with a leading `'`
    (cells/, the month report's rule), a spreadsheet's text, never run; a credit of -8.32 and
    a count of -1 are numbers and stay as they are; a missing name stays empty."""
    frame = pd.DataFrame(
        {
            "team": ['=HYPERLINK("http://x.invalid")', "@SUM(A1:A9)", "search", None],
            "effective_usd": [D("-8.32"), D("1.5"), D("0"), D("2")],
            "runs": [-1, 2, 3, 4],
        }
    )
    assert csv_text(frame).splitlines() == [
        "team,effective_usd,runs",
        '"\'=HYPERLINK(""http://x.invalid"")",-8.32,-1',
        "'@SUM(A1:A9),1.5,2",
        "search,0,3",
        ",2,4",
    ]


def test_charts_draw_decimal_money_as_numbers() -> None:
    spend = pd.DataFrame(
        {
            "day": pd.to_datetime(["2026-10-01"]),
            "category": ["accelerator"],
            "effective_cost": [D("1234567890.123456789")],
        }
    )
    [rows] = charts.spend_trend(spend).to_dict()["datasets"].values()
    assert rows[0]["effective_cost"] == 1234567890.1234567  # a float for drawing only
    assert spend["effective_cost"][0] == D("1234567890.123456789")  # the frame keeps every digit


def test_dashboard_command_binds_localhost_and_passes_the_config(tmp_path: Path) -> None:
    args = build_parser().parse_args(["dashboard", "--config", "x.yaml"])
    assert (args.host, args.port) == ("127.0.0.1", 8501)
    argv = streamlit_command(tmp_path / "x.yaml", args.host, 9000)
    assert argv[1:4] == ["-m", "streamlit", "run"] and argv[4].endswith("dashboards/app.py")
    assert argv[argv.index("--server.address") + 1] == "127.0.0.1"
    assert argv[-2:] == ["--config", str(tmp_path / "x.yaml")]


def test_sign_in_required_by_config_fails_closed(tmp_path, monkeypatch):
    """dashboard.sign_in: true with no [auth] secrets: the app stops before any page."""
    from streamlit.testing.v1 import AppTest

    config = tmp_path / "flopledger.yaml"
    config.write_text("warehouse: {path: w.duckdb}\ndashboard: {sign_in: true}\n")
    monkeypatch.setenv("FLOPLEDGER_CONFIG", str(config))
    app = AppTest.from_file(
        str(Path(__file__).resolve().parents[2] / "dashboards" / "app.py"), default_timeout=HANG_S
    )
    app.run()
    assert not app.exception
    assert any("dashboard.sign_in" in e.value for e in app.error)
    assert not app.metric  # no figures shown
