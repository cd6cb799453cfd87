"""Money stays exact to the CSV: a page's download carries every decimal the warehouse holds.

A small hand-made warehouse (every mart built empty, two runs written in) holds amounts with
more significant digits than a float keeps (about 16): the CSVs of the Cost per run and Cost
per million tokens pages must carry them digit for digit, while the page rounds them to the
cent on screen.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
import streamlit as st

from flopledger import models
from flopledger.settings import load_config
from flopledger.warehouse import open_warehouse
from tests.dashboards.helpers import metric

# Two runs of one model on 2026-10-01. run-a costs 1234567890.123456789 USD: 19 significant
# digits, so a float would write it as 1234567890.1234567.
RUNS = """
INSERT INTO cost_per_run BY NAME
SELECT * FROM (VALUES
    ('run-a', 'job-a', 'tiny', 'proj-tiny', 'pretraining', 'tiny-model', 'H100-80GB', 8,
     'succeeded', TIMESTAMP '2026-10-01 01:00:00', TIMESTAMP '2026-10-01 02:00:00', 8.0,
     CAST('1234567890.123456789' AS DECIMAL(38, 9)), 1000000, 0, DATE '2026-10-01'),
    ('run-b', 'job-b', 'tiny', 'proj-tiny', 'pretraining', 'tiny-model', 'H100-80GB', 8,
     'succeeded', TIMESTAMP '2026-10-01 03:00:00', TIMESTAMP '2026-10-01 04:00:00', 8.0,
     CAST('0.000000002' AS DECIMAL(38, 9)), 1500000, 500000, DATE '2026-10-01')
) AS t(run_id, job_id, team, project_id, workload_class, model_name, accelerator_type,
       accelerator_count, status, started_at, ended_at, accelerator_hours, effective_cost,
       tokens_in, tokens_out, run_day)
"""


@pytest.fixture(scope="module")
def tiny_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A warehouse with every mart (empty) and the two runs above, published."""
    config = tmp_path_factory.mktemp("tiny") / "flopledger.yaml"
    config.write_text("warehouse: {kind: duckdb, path: tiny.duckdb}\n")
    wh = open_warehouse(load_config(config).warehouse)
    wh.ensure_schema()
    for mart in models.marts():
        wh.build_mart(mart.name)
    wh.execute(RUNS)
    wh.publish_snapshot()
    return config


@pytest.fixture
def downloads(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[dict[str, str]]]:
    """The rows of every CSV a page offers for download, by file name."""
    offered: dict[str, list[dict[str, str]]] = {}
    real = st.download_button

    def spy(label: str, data: bytes, *args, **kwargs):
        offered[kwargs["file_name"]] = list(csv.DictReader(io.StringIO(data.decode())))
        return real(label, data, *args, **kwargs)

    monkeypatch.setattr(st, "download_button", spy)
    return offered


def test_cost_per_run_csv_carries_every_decimal(open_page, tiny_config: Path, downloads) -> None:
    open_page("runs", config=tiny_config)
    cost = {row["run_id"]: row["effective_cost"] for row in downloads["cost_per_run.csv"]}
    assert cost == {"run-a": "1234567890.123456789", "run-b": "0.000000002"}


def test_cost_per_million_tokens_csv_is_exact(open_page, tiny_config: Path, downloads) -> None:
    at = open_page("tokens", config=tiny_config)
    [row] = downloads["cost_per_million_tokens_by_model_name.csv"]
    assert row["model_name"] == "tiny-model"
    # 1234567890.123456789 + 0.000000002
    assert row["started_run_cost"] == "1234567890.123456791"
    # tokens: 1,000,000 + 1,500,000 + 500,000 = 3,000,000; 1234567890.123456791 x 1e6 / 3e6
    # = 411522630.041152263666..., truncated to 9 places (the rule of cost_per_million_tokens)
    assert row["cost_per_million_tokens"] == "411522630.041152263"
    # output tokens: 0 + 500,000; 1234567890.123456791 x 1e6 / 5e5 = 1234567890.123456791 x 2
    assert row["cost_per_million_output_tokens"] == "2469135780.246913582"
    # on screen, rounded to the cent for display only
    assert metric(at, "Cost of runs started (USD)") == "$1,234,567,890.12"
    assert metric(at, "Cost per million tokens (USD)") == "$411,522,630.04"
