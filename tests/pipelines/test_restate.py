"""History moves only on purpose, end to end through `flopledger run`, `flopledger report month`
and `flopledger restate` on export-shaped files (docs/operations.md, "What a run may change").

Two months. On each month's first day: a3-node-1's 80 USD GPU hour held by an llm run, a 40 USD
GPU hour held by a vision run, a 30 USD bucket (shared cost), and a 12 USD bucket labelled
job=<the vision run> (shared while run_label_key is run_id). September under the proportional
policy (weights llm 80, vision 40, W 120), shared 30 + 12 = 42:
  llm 80 + floor(42 x 80 / 120) = 80 + 28 = 108; vision 40 + 14 = 54. Effective 162.
The months lie before today's (the wall clock the commands read), so both are closed.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from datetime import date, datetime
from decimal import Decimal as D
from pathlib import Path

import duckdb
import pytest

from flopledger.cli.commands import report
from flopledger.cli.main import main
from flopledger.pipelines.resources import Flopledger
from tests.conftest import billing_row, new_project_dir, run_record, write_ndjson

OLD = "allocation: {shared_cost_policy: proportional, run_label_key: run_id}\n"
NEW = "allocation: {shared_cost_policy: even, run_label_key: job}\n"
BUCKET = "Standard Storage US Multi-region"


def _day(day: str, llm: str, vision: str, invoice: str) -> tuple[list, list]:
    month = {"invoice": {"month": invoice, "publisher_type": "GOOGLE"}}
    billing = [
        billing_row(hour=f"{day} 00", cost=80, export_time=f"{day} 04:00:00 UTC", **month),
        billing_row(hour=f"{day} 01", cost=40, export_time=f"{day} 04:00:00 UTC", **month),
        billing_row(hour=f"{day} 02", cost=30, sku=BUCKET, resource="ckpt", usage_seconds=None,
                    export_time=f"{day} 04:00:00 UTC", **month),
        billing_row(hour=f"{day} 03", cost=12, sku=BUCKET, resource="ckpt", usage_seconds=None,
                    labels={"job": vision}, export_time=f"{day} 04:00:00 UTC", **month),
    ]  # fmt: skip
    runs = [
        run_record(llm, team="llm", submitted_at=f"{day}T00:00:00Z",
                   started_at=f"{day}T00:00:00Z", ended_at=f"{day}T01:00:00Z"),
        run_record(vision, team="vision", submitted_at=f"{day}T01:00:00Z",
                   started_at=f"{day}T01:00:00Z", ended_at=f"{day}T02:00:00Z"),
    ]  # fmt: skip
    return billing, runs


def _project(root: Path, allocation: str) -> Path:
    new_project_dir(root)
    config = root / "flopledger.yaml"
    config.write_text(config.read_text() + allocation + "month_report: {out: reports}\n")
    sep, oct_ = (
        _day("2026-09-01", "llm-9", "vis-9", "202609"),
        _day("2026-10-01", "llm-10", "vis-10", "202610"),
    )
    write_ndjson(root / "billing" / "months.ndjson", sep[0] + oct_[0])
    write_ndjson(root / "jobs" / "runs.jsonl", sep[1] + oct_[1])
    return config


# The tests' clock, every clock the commands read: today is 2026-12-02, so October is closed
# (it closed 2026-11-06) and November, closing 2026-12-06, is the oldest month not closed.
NOW = datetime(2026, 12, 2, 12, 0)


@pytest.fixture(autouse=True)
def _fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Flopledger, "now", lambda self: NOW)
    monkeypatch.setattr(report, "wall_clock", lambda: NOW)


def _cli(*argv: str) -> tuple[int, str]:
    printed = io.StringIO()
    with redirect_stdout(printed):
        code = main(list(argv))
    return code, printed.getvalue()


def _chargeback(root: Path, month: str) -> dict[str, tuple[str, D]]:
    con = duckdb.connect(str(root / "w.duckdb"), read_only=True)
    try:
        rows = con.execute(
            "SELECT team, policy, total_cost FROM team_chargeback WHERE month = CAST(? AS DATE)",
            [f"{month}-01"],
        ).fetchall()
    finally:
        con.close()
    return {team: (policy, total) for team, policy, total in rows}


def _ran_and_reported(root: Path, allocation: str = OLD) -> Path:
    config = _project(root, allocation)
    assert _cli("run", "--config", str(config))[0] == 0
    assert _chargeback(root, "2026-09") == {
        "llm": ("proportional", D("108")),
        "vision": ("proportional", D("54")),
    }
    code, out = _cli("report", "month", "--config", str(config), "--month", "2026-09")
    assert code == 0, out
    assert "2026-09: report 1 written" in out
    return config


def test_a_settings_change_leaves_closed_months_until_restated(tmp_path: Path, monkeypatch):
    config = _ran_and_reported(tmp_path)
    config.write_text(config.read_text().replace(OLD, NEW))

    # Without restate: the change takes effect from the open month (November, the oldest month
    # not closed today; nothing loaded there yet), so no closed month moves and none is said.
    code, out = _cli("run", "--config", str(config))
    assert code == 0, out
    assert "closed month" not in out
    assert _chargeback(tmp_path, "2026-09") == {
        "llm": ("proportional", D("108")),
        "vision": ("proportional", D("54")),
    }

    # Asked and refused: it says what it would change, and changes nothing.
    monkeypatch.setattr("builtins.input", lambda prompt: "n")
    code, out = _cli("restate", "--config", str(config), "--from", "2026-09-01")
    assert code == 1 and "chargeback_policy: proportional" in out
    assert _chargeback(tmp_path, "2026-09")["llm"] == ("proportional", D("108"))

    # With --yes: what it will change is said first, then September is restated.
    code, out = _cli("restate", "--config", str(config), "--from", "2026-09-01", "--yes")
    assert code == 0, out
    assert "restate from 2026-09-01 through 2026-10-01" in out
    assert "chargeback_policy: proportional, even (from 2026-11-01) -> even" in out
    assert "run_label_key: run_id, job (from 2026-11-01) -> job" in out
    assert "months: 2026-09 (closed), 2026-10 (closed)" in out
    assert "tables rebuilt from 2026-09-01: billing_hourly, team_chargeback" in out
    assert out.index("restate from") < out.index("closed month 2026-09 changed")
    # September under even and run_label_key job: the 12 USD labelled job=vis-9 goes to vis-9
    # (vision 40 + 12 = 52), shared 30 split evenly, 15 each: llm 95, vision 67. Sum 162.
    assert _chargeback(tmp_path, "2026-09") == {
        "llm": ("even", D("95")),
        "vision": ("even", D("67")),
    }
    assert "chargeback llm total_cost 108.00 -> 95.00" in out
    # The month report's revision 2, with the restatement as its reason.
    assert "2026-09: revision 2 written" in out
    assert "2026-10: not reported yet" in out
    manifest = json.loads((tmp_path / "reports" / "2026-09" / "manifest.json").read_text())
    last = manifest["revisions"][-1]
    assert last["revision"] == 2
    assert last["totals"]["chargeback llm total_cost"] == "95.000000000"
    assert last["why"][0].startswith("restate --from 2026-09-01: chargeback_policy")
    con = duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True)
    try:
        restated = con.execute(
            "SELECT from_day, through_day, settings_changed FROM bookkeeping.restatements"
        ).fetchall()
    finally:
        con.close()
    assert [(str(a), str(b), c.split("; ")[0]) for a, b, c in restated] == [
        (
            "2026-09-01",
            "2026-10-01",
            "chargeback_policy: proportional, even (from 2026-11-01) -> even",
        )
    ]
    changes = (tmp_path / "reports" / "2026-09" / "r2" / "changes.csv").read_text()
    assert "chargeback llm total_cost,108.000000000,95.000000000,-13.000000000" in changes


def test_a_late_row_for_a_closed_month_is_said_by_the_scheduled_runs(tmp_path: Path):
    """The late row arrives through the jobs dagster-daemon launches (billing_daily's ingest of
    the export day, then marts_after_ingest's marts run, no `flopledger run` around them): the
    marts run itself records the change, and the month close's revision gives its cause."""
    from flopledger.pipelines.asset_jobs import INGEST_JOB, MARTS_JOB
    from flopledger.pipelines.definitions import build_definitions
    from flopledger.pipelines.run_tags import NOW_TAG

    config = _ran_and_reported(tmp_path)
    late = billing_row(hour="2026-09-15 05", cost=6, sku=BUCKET, resource="ckpt",
                       usage_seconds=None, export_time="2026-11-20 04:00:00 UTC",
                       invoice={"month": "202609", "publisher_type": "GOOGLE"})  # fmt: skip
    write_ndjson(tmp_path / "billing" / "late.ndjson", [late])
    defs = build_definitions(str(config), start=date(2026, 9, 1), end=date(2026, 11, 21))
    day = {"dagster/asset_partition_range_start": "2026-11-20"}
    day["dagster/asset_partition_range_end"] = "2026-11-20"
    ingest = defs.resolve_job_def(INGEST_JOB).execute_in_process(partition_key="2026-11-20")
    assert ingest.success
    marts = defs.resolve_job_def(MARTS_JOB).execute_in_process(
        tags={NOW_TAG: NOW.isoformat(), **day}
    )
    assert marts.success
    said = marts.asset_materializations_for_node("closed_month_changes")[0].metadata
    # Shared 42 + 6 = 48: llm 80 + floor(48 x 80 / 120) = 80 + 32 = 112; vision 40 + 16 = 56.
    assert said["closed_months"].value == (
        "closed month 2026-09 changed: chargeback llm total_cost 108.00 -> 112.00; "
        "chargeback vision total_cost 54.00 -> 56.00; effective_cost 162.00 -> 168.00"
    )
    con = duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True)
    try:
        recorded = con.execute(
            "SELECT month, figure, before_value, after_value, cause FROM closed_month_changes "
            "ORDER BY figure"
        ).fetchall()
    finally:
        con.close()
    cause = "run: rows arrived for a closed month (late billing rows or a restated day)"
    assert [(str(m), f, b, a, c) for m, f, b, a, c in recorded] == [
        ("2026-09-01", "chargeback llm total_cost", D(108), D(112), cause),
        ("2026-09-01", "chargeback vision total_cost", D(54), D(56), cause),
        ("2026-09-01", "effective_cost", D(162), D(168), cause),
    ]
    # October, closed too, did not move: nothing recorded for it.
    code, out = _cli("report", "month", "--config", str(config), "--month", "2026-09")
    assert code == 0, out
    assert "2026-09: revision 2 written" in out
    assert "why: run: rows arrived for a closed month" in out

    # The next marts run has nothing new to compare: it records nothing twice.
    again = defs.resolve_job_def(MARTS_JOB).execute_in_process(
        tags={NOW_TAG: NOW.isoformat(), **day}
    )
    assert again.success
    assert (
        again.asset_materializations_for_node("closed_month_changes")[0].metadata["changed"].value
        == 0
    )
