"""Backfills of any range (issue 39, item 6): a run over days before `history_start` makes
Dagster's partitions reach back to them, and a run without a `flopledger/now` tag (a backfill
or a materialisation from the UI) gets one: its backfill's time, the same for every run of it.
"""

from datetime import UTC, date, datetime

import dagster as dg
import duckdb
from dagster._core.execution.backfill import BulkActionStatus, PartitionBackfill

from flopledger.pipelines.alerts.assets import budgets_asset
from flopledger.pipelines.definitions import build_definitions
from flopledger.pipelines.instance import flopledger_instance
from flopledger.pipelines.resources import Flopledger
from flopledger.pipelines.run_tags import NOW_TAG
from flopledger.pipelines.runner import run_pipeline
from flopledger.settings import load_config
from flopledger.settings.history_floor import lower_floor, read_floor
from tests.budgets.conftest import ten_days
from tests.conftest import write_ndjson

BUDGETS = """
budgets:
  - {name: llm-monthly, scope: {team: llm}, amount: 1000, channels: []}
"""


def _first_partition(config_path) -> str | None:
    defs = build_definitions(str(config_path))
    partitions = defs.resolve_job_def("ingest").partitions_def
    assert partitions is not None
    return partitions.get_first_partition_key()


def test_a_run_before_history_start_makes_the_partitions_reach_back(project_dir):
    config_path = project_dir / "flopledger.yaml"
    # The inputs hold 2026-10-01 .. 10-10; the config offers Dagster's tools 10-05 on.
    config_path.write_text(config_path.read_text() + "history_start: 2026-10-05\n")
    write_ndjson(project_dir / "billing" / "x.ndjson", ten_days())
    assert _first_partition(config_path) == "2026-10-05"
    config = load_config(config_path)
    assert run_pipeline(config, config_path).succeeded
    home = project_dir / "dagster_home"
    assert read_floor(home) == date(2026, 10, 1)
    # The UI's and the daemon's definitions (loaded afresh) now offer the older days.
    assert _first_partition(config_path) == "2026-10-01"
    # A later first day never moves it forward again; an earlier one does.
    assert not lower_floor(home, date(2026, 10, 3))
    assert read_floor(home) == date(2026, 10, 1)
    assert lower_floor(home, date(2026, 9, 1))
    assert _first_partition(config_path) == "2026-09-01"


def test_a_floor_file_that_holds_no_date_is_ignored(project_dir):
    config_path = project_dir / "flopledger.yaml"
    config_path.write_text(config_path.read_text() + "history_start: 2026-10-05\n")
    (project_dir / "dagster_home").mkdir()
    (project_dir / "dagster_home" / "history_floor").write_text("not a date\n")
    assert _first_partition(config_path) == "2026-10-05"


def _materialize_budgets(config_path, instance, tags):
    result = dg.materialize(
        [budgets_asset],
        instance=instance,
        resources={"flopledger": Flopledger(config_path=str(config_path))},
        tags=tags,
    )
    assert result.success
    return instance.get_run_by_id(result.run_id)


def test_a_backfill_run_gets_the_backfill_time_as_its_clock_and_tag(project_dir):
    config_path = project_dir / "flopledger.yaml"
    (project_dir / "budgets.yaml").write_text(BUDGETS)
    config_path.write_text(config_path.read_text() + "budgets: budgets.yaml\n")
    config = load_config(config_path)
    submitted = datetime(2026, 11, 2, 3, 4, 5, tzinfo=UTC)
    with flopledger_instance(config) as instance:
        instance.add_backfill(
            PartitionBackfill(
                "bkfl0001",
                BulkActionStatus.COMPLETED_SUCCESS,
                from_failure=False,
                tags={},
                backfill_timestamp=submitted.timestamp(),
            )
        )
        run = _materialize_budgets(config_path, instance, {"dagster/backfill": "bkfl0001"})
        assert run.tags[NOW_TAG] == "2026-11-02T03:04:05"
        assert _loaded_at(config) == [datetime(2026, 11, 2, 3, 4, 5)]  # the clock it used
        # A run from the UI without a backfill: the clock it used is written on it too.
        plain = _materialize_budgets(config_path, instance, {})
        assert _loaded_at(config) == [datetime.fromisoformat(plain.tags[NOW_TAG])]
        # A run that has the tag keeps it.
        tagged = _materialize_budgets(config_path, instance, {NOW_TAG: "2026-10-20T00:00:00"})
        assert tagged.tags[NOW_TAG] == "2026-10-20T00:00:00"
        assert _loaded_at(config) == [datetime(2026, 10, 20)]


def _loaded_at(config) -> list[datetime]:
    con = duckdb.connect(config.warehouse.path, read_only=True)
    try:
        return [row[0] for row in con.execute("SELECT loaded_at FROM budgets").fetchall()]
    finally:
        con.close()
