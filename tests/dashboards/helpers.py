"""Helpers for the dashboard tests: the simulated fleet, the marts read directly, page text."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

from streamlit.testing.v1 import AppTest

from flopledger.pipelines.runner import run_pipeline
from flopledger.settings import load_config
from flopledger.simulator import simulate
from flopledger.warehouse.duckdb import DuckDBWarehouse, connect

APP = Path(__file__).resolve().parents[2] / "dashboards" / "app.py"
START = date(2026, 10, 1)
PAGES = {
    "overview": None,
    "runs": "pages/cost_per_run.py",
    "tokens": "pages/cost_per_million_tokens.py",
    "idle": "pages/idle_capacity.py",
    "efficiency": "pages/accelerator_efficiency.py",
    "portfolio": "pages/portfolio.py",
    "budgets": "pages/budgets_and_alerts.py",
    "explorer": "pages/cost_explorer.py",
    "chargeback": "pages/chargeback.py",
    "glossary": "pages/glossary.py",
}


class Marts:
    """Read the published snapshot directly, to check what the pages show."""

    def __init__(self, config: Path):
        self.config = config
        self.warehouse = DuckDBWarehouse(load_config(config).warehouse.path)

    def rows(self, sql: str, params: list[Any] | None = None) -> list[tuple]:
        con = connect(
            self.warehouse.snapshot_path, read_only=True
        )  # intermediate tables by name too
        try:
            return con.execute(sql, params).fetchall()
        finally:
            con.close()

    def one(self, sql: str, params: list[Any] | None = None) -> Any:
        return self.rows(sql, params)[0][0]

    def counts(self, tables: list[str]) -> dict[str, int]:
        return {t: self.one(f"SELECT count(*) FROM {t}") for t in tables}


def money(value: Decimal | float) -> str:
    """The page's money format, written out here: -$1,234.57."""
    sign = "-" if value < 0 else ""
    return f"{sign}${abs(float(value)):,.2f}"


def build_fleet(root: Path) -> Path:
    """Simulate 3 days of 16 GPUs and 8 TPU chips, run the pipeline, return the config path."""
    result = simulate(root, gpus=16, tpu_chips=8, days=3, start=START, telemetry=False)
    config = Path(result.config_path)
    report = run_pipeline(load_config(config), config)
    assert report.succeeded, report.failures
    assert report.snapshot, "the pipeline published no snapshot"
    return config


def build_two_clouds(root: Path) -> Path:
    """Simulate 2 days of 8 GCP GPUs and one AWS p5.48xlarge (8 H100s, billed as FOCUS 1.2),
    run the pipeline, return the config path: the smallest warehouse with two providers."""
    result = simulate(root, gpus=8, tpu_chips=0, days=2, start=START, telemetry=False, aws_gpus=8)
    config = Path(result.config_path)
    report = run_pipeline(load_config(config), config)
    assert report.succeeded, report.failures
    assert report.snapshot, "the pipeline published no snapshot"
    return config


def metric(at: AppTest, label: str) -> str:
    found = [m.value for m in at.metric if m.label == label]
    assert found, f"no metric {label!r} in {[m.label for m in at.metric]}"
    return found[0]


def infos(at: AppTest) -> str:
    return "\n".join(i.value for i in at.info)
