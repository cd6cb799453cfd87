"""One Dagster instance per deployment: what `flopledger run` did is in the config's
dagster_home, where the UI (`flopledger ui`) and the daemon read it."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from flopledger.cli.commands.ui import dagster_dev
from flopledger.pipelines.runner import run_pipeline
from flopledger.settings import load_config
from tests.conftest import REPO, billing_row, run_record, write_ndjson


def test_a_run_is_recorded_where_the_ui_reads(project_dir: Path) -> None:
    write_ndjson(project_dir / "billing" / "x.ndjson", [billing_row()])
    write_ndjson(project_dir / "jobs" / "runs.jsonl", [run_record("r")])
    config_path = project_dir / "flopledger.yaml"
    config = load_config(config_path)
    assert config.dagster_home == str(project_dir / "dagster_home")  # beside the warehouse
    assert run_pipeline(config, config_path).succeeded

    argv, env = dagster_dev(config_path, "127.0.0.1", 3999)
    assert env["DAGSTER_HOME"] == config.dagster_home
    assert env["FLOPLEDGER_CONFIG"] == str(config_path)
    # The installed module, not a checkout's workspace.yaml: `flopledger ui` works from the wheel.
    code = ["-m", "flopledger.pipelines.definitions", "-a", "defs"]
    assert argv[-8:] == [*code, "-h", "127.0.0.1", "-p", "3999"]
    home = Path(config.dagster_home)
    assert (home / "dagster.yaml").read_text() == (REPO / "pipelines" / "dagster.yaml").read_text()

    with dg.DagsterInstance.from_config(str(home)) as instance:
        runs = instance.get_runs()
        assert sorted(r.job_name for r in runs) == ["ingest", "marts"]
        assert {r.status for r in runs} == {dg.DagsterRunStatus.SUCCESS}
        for asset in ("billing_line_items", "cost_per_run", "warehouse_snapshot"):
            assert instance.get_latest_materialization_event(dg.AssetKey(asset)) is not None
        history = instance.event_log_storage.get_asset_check_execution_history(
            dg.AssetCheckKey(dg.AssetKey("books"), "books_close"), limit=5
        )
        assert [h.status.value for h in history] == ["SUCCEEDED"]
