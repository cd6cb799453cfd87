"""A ten-day warehouse built by the real pipeline from export-shaped rows, with a pinned clock.

Billing (all USD, one row a day per team, at 00:00 unless said):
  llm:    50 a day, 2026-10-01 .. 2026-10-10 (the last row 23:00 -> 2026-10-11 00:00)
  vision: 20 a day, 2026-10-01 .. 2026-10-09, then 80 on 2026-10-10
So the data ends at 2026-10-11 00:00 (a Sunday): budgets are measured as of that moment.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import duckdb
import pytest

from flopledger.pipelines.resources import Flopledger
from flopledger.pipelines.runner import run_pipeline
from flopledger.settings import load_config
from tests.conftest import billing_row, write_ndjson

NOW = datetime(2026, 10, 11, 6, 0)


def ten_days() -> list[dict]:
    rows = []
    for day in range(1, 11):
        hour = f"2026-10-{day:02d} 00"
        last = (
            {"hour": f"2026-10-{day:02d} 23", "end_hour": "2026-10-11 00"}
            if day == 10
            else {"hour": hour}
        )
        rows.append(billing_row(cost=50, labels={"team": "llm"}, resource="vm-llm", **last))
        rows.append(
            billing_row(
                hour=hour,
                cost=80 if day == 10 else 20,
                labels={"team": "vision"},
                resource="vm-vis",
            )
        )
    return rows


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now


@pytest.fixture
def clock(monkeypatch) -> Clock:
    """Pins Flopledger.now (the pipeline's only wall clock) to a time the test controls."""
    pinned = Clock(NOW)
    monkeypatch.setattr(Flopledger, "now", lambda self: pinned.now)
    return pinned


class Ledger:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.config_path = root / "flopledger.yaml"

    def setup(self, budgets: str, fx: str | None = None, billing: list | None = None) -> Ledger:
        write_ndjson(
            self.root / "billing" / "x.ndjson", billing if billing is not None else ten_days()
        )
        write_ndjson(self.root / "jobs" / "runs.jsonl", [])
        (self.root / "budgets.yaml").write_text(budgets)
        text = self.config_path.read_text() + "budgets: budgets.yaml\n"
        if fx is not None:
            (self.root / "fx.csv").write_text(fx)
            text += "fx_rates: fx.csv\n"
        self.config_path.write_text(text)
        return self

    def run(self):
        report = run_pipeline(load_config(self.config_path), self.config_path)
        assert report.succeeded, report.failures
        return report

    def rows(self, sql: str, params=None) -> list[dict]:
        con = duckdb.connect(str(self.root / "w.duckdb"), read_only=True)
        try:
            cur = con.execute(sql, params)
            names = [d[0] for d in cur.description]
            return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
        finally:
            con.close()

    def status(self, budget: str) -> dict:
        return self.rows("SELECT * FROM budget_status WHERE budget = ? AND is_current", [budget])[0]

    def alert_ids(self) -> list[str]:
        return [r["alert_id"] for r in self.rows("SELECT alert_id FROM alerts ORDER BY alert_id")]


@pytest.fixture
def ledger(project_dir, clock) -> Ledger:
    return Ledger(project_dir)


def new_project(root: Path) -> Path:
    """The same layout as tests/conftest.py's project_dir, for module-scoped fixtures."""
    (root / "billing").mkdir(parents=True)
    (root / "jobs").mkdir()
    (root / "flopledger.yaml").write_text(
        "warehouse: {kind: duckdb, path: w.duckdb}\n"
        "sources:\n  gcp_billing: {paths: [billing/*.ndjson]}\n  jobs: {paths: [jobs/*.jsonl]}\n"
    )
    return root
