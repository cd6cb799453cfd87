"""The Dagster wiring: one Definitions object whose every job and schedule resolves."""

import dataclasses
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest
import yaml

from flopledger import models
from flopledger.cli.commands.ui import CODE_LOCATION
from flopledger.pipelines.definitions import build_definitions, default_config_path
from flopledger.pipelines.marts import assets
from tests.conftest import HANG_S, REPO


def test_every_job_and_schedule_resolves(tmp_path):
    defs = build_definitions(str(REPO / "examples" / "flopledger.yaml"))
    repo = defs.get_repository_def()
    names = {job.name for job in repo.get_all_jobs()}
    assert {"ingest", "marts"} <= names
    for job in repo.get_all_jobs():
        assert job.get_job_snapshot().name == job.name
    for schedule in repo.schedule_defs:
        assert schedule.job_name in names
    keys = {k.to_user_string() for k in repo.asset_graph.get_all_asset_keys()}
    assert {"billing_line_items", "jobs", "job_placements", "spend_daily"} <= keys


def test_workspace_validates():
    result = subprocess.run(
        [
            str(Path(sys.executable).parent / "dagster"),
            "definitions",
            "validate",
            "-w",
            "workspace.yaml",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_workspace_file_and_flopledger_ui_load_the_same_module():
    # The checkout's workspace.yaml (Dagster's own CLI, the systemd units) and `flopledger ui`
    # (which needs no checkout, so names the module itself) load one code location.
    [location] = yaml.safe_load((REPO / "workspace.yaml").read_text())["load_from"]
    module = location["python_module"]
    assert ("-m", module["module_name"], "-a", module["attribute"]) == CODE_LOCATION
    assert module == {"module_name": "flopledger.pipelines.definitions", "attribute": "defs"}


def test_the_config_is_the_environments_else_the_working_folders(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FLOPLEDGER_CONFIG", raising=False)
    assert default_config_path() == str(tmp_path / "flopledger.yaml")  # absent: a run says so
    monkeypatch.setenv("FLOPLEDGER_CONFIG", "etc/f.yaml")
    assert default_config_path() == str(tmp_path / "etc" / "f.yaml")


def test_partitions_cover_the_configured_history(tmp_path):
    config = tmp_path / "flopledger.yaml"
    config.write_text("history_start: 2019-03-01\nwarehouse: {path: w.duckdb}\n")
    defs = build_definitions(str(config))
    asset = defs.resolve_assets_def("billing_line_items")
    keys = asset.partitions_def.get_partition_keys(dynamic_partitions_store=None)
    assert keys[0] == "2019-03-01"  # years of history, from the config, not a hard-coded start
    assert isinstance(asset.partitions_def, dg.TimeWindowPartitionsDefinition)


def test_a_model_reading_a_table_no_asset_writes_is_refused():
    """A mart's upstreams come from its SQL: a table no asset writes (a typo, say) is an error
    naming it, not an upstream quietly left out so the mart builds before its inputs."""
    spend = models.model("spend_daily")
    typo = dataclasses.replace(spend, depends_on=(*spend.depends_on, "billing_line_item"))
    known = {*spend.depends_on}
    days = dg.DailyPartitionsDefinition(start_date="2026-10-01")
    assert assets._mart_asset(spend, known, days).key == dg.AssetKey("spend_daily")
    with pytest.raises(ValueError, match=r"spend_daily reads \['billing_line_item'\]"):
        assets._mart_asset(typo, known, days)


def test_day_grained_marts_are_on_the_sources_partitions():
    """The UI shows which days a day-grained mart is built for: its partitions are the raw
    assets'; a month-, run- or whole-table model is one asset."""
    defs = build_definitions(str(REPO / "examples" / "flopledger.yaml"))
    raw = defs.resolve_assets_def("billing_line_items").partitions_def
    for name in ("spend_daily", "billing_hourly", "idle_capacity", "cost_explorer_rows"):
        assert defs.resolve_assets_def(name).partitions_def == raw, name
    for name in ("cost_per_run", "team_chargeback", "books", "spend_monthly"):
        assert defs.resolve_assets_def(name).partitions_def is None, name
