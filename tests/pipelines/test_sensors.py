"""The sensors evaluated with Dagster's test helpers: what each asks for, and when it holds back.

`marts_after_ingest` follows each successful scheduled ingest or telemetry run with one marts
run. `alert_notifier` (exactly-once delivery across ticks, restarts and reruns, and while
writers hold the warehouse) is tests/budgets/test_notifier.py's subject.
"""

import dagster as dg
import pytest

from flopledger.pipelines.definitions import build_definitions
from tests.conftest import REPO, write_config

NOW = "flopledger/now"
RUN_ID = "5a1e0000-0000-4000-8000-000000000001"


@pytest.fixture(scope="module")
def marts_after_ingest() -> dg.RunStatusSensorDefinition:
    defs = build_definitions(str(REPO / "examples" / "flopledger.yaml"))
    return defs.get_sensor_def("marts_after_ingest")


def finished(
    instance: dg.DagsterInstance,
    job: str,
    run_id: str,
    tags: dict[str, str],
    status: dg.DagsterRunStatus = dg.DagsterRunStatus.SUCCESS,
) -> tuple[dg.DagsterRun, dg.DagsterEvent]:
    """A run of `job` stored in the instance, with the event its end writes to the event log."""
    run = instance.add_run(dg.DagsterRun(job_name=job, run_id=run_id, tags=tags, status=status))
    event_type = (
        dg.DagsterEventType.RUN_SUCCESS
        if status == dg.DagsterRunStatus.SUCCESS
        else dg.DagsterEventType.RUN_FAILURE
    )
    event = dg.DagsterEvent(event_type_value=event_type.value, job_name=job)
    instance.report_dagster_event(event, run_id=run_id)
    return run, event


def scheduled(now: str) -> dict[str, str]:
    """The tags of a run billing_daily asked for (see test_schedules.py)."""
    return {
        "dagster/schedule_name": "billing_daily",
        "dagster/asset_partition_range_start": "2026-10-03",
        "dagster/asset_partition_range_end": "2026-10-05",
        NOW: now,
    }


def test_a_scheduled_ingest_is_followed_by_one_marts_run(marts_after_ingest):
    assert marts_after_ingest.job_name == "marts"  # the RunRequest's job
    with dg.DagsterInstance.ephemeral() as instance:
        run, event = finished(instance, "ingest", RUN_ID, scheduled("2026-10-06T06:30:00"))
        context = dg.build_run_status_sensor_context(
            sensor_name="marts_after_ingest",
            dagster_event=event,
            dagster_instance=instance,
            dagster_run=run,
        )
        request = marts_after_ingest(context)
    assert isinstance(request, dg.RunRequest)
    assert request.run_key == f"marts-after-{RUN_ID}"
    assert request.tags == {  # the ingest's clock (not the sensor's) and its partitions
        NOW: "2026-10-06T06:30:00",
        "dagster/asset_partition_range_start": "2026-10-03",
        "dagster/asset_partition_range_end": "2026-10-05",
    }
    assert request.asset_selection is None  # after billing: every mart (each builds what changed)


def test_a_cli_run_is_left_alone(marts_after_ingest):
    with dg.DagsterInstance.ephemeral() as instance:
        run, event = finished(instance, "ingest", RUN_ID, {"flopledger/cli": "true"})
        context = dg.build_run_status_sensor_context(
            sensor_name="marts_after_ingest",
            dagster_event=event,
            dagster_instance=instance,
            dagster_run=run,
        )
        result = marts_after_ingest(context)
    assert isinstance(result, dg.SkipReason)
    assert result.skip_message == f"run {RUN_ID} came from flopledger run, which builds its marts"


def test_ticks_follow_only_successful_ingest_and_telemetry_runs(marts_after_ingest):
    """The whole tick (Dagster's own filter on status and monitored jobs): a marts run is never
    followed by another (no loop), nor a failed ingest; a telemetry run is, once."""
    with dg.DagsterInstance.ephemeral() as instance:

        def tick(cursor: str | None) -> tuple[list[dg.RunRequest], str | None]:
            context = dg.build_sensor_context(instance=instance, cursor=cursor)
            result = marts_after_ingest.evaluate_tick(context)
            return result.run_requests or [], result.cursor

        requests, cursor = tick(None)  # the first tick only sets the cursor
        assert requests == []
        finished(instance, "marts", "marts-1", {NOW: "2026-10-06T06:30:00"})
        finished(instance, "ingest", "failed-1", {}, status=dg.DagsterRunStatus.FAILURE)
        finished(instance, "telemetry", "telemetry-1", {NOW: "2026-10-06T06:07:00"})
        requests, cursor = tick(cursor)
        assert [(r.run_key, r.tags) for r in requests] == [  # the job: the sensor's, marts
            (
                "marts-after-telemetry-1",
                {NOW: "2026-10-06T06:07:00", "dagster/sensor_name": "marts_after_ingest"},
            )
        ]
        # After telemetry: the models the samples feed, what they and their checks read (built
        # already, they rebuild nothing), and the snapshot; not budgets, alerts, monthly spend.
        selected = {k.to_user_string() for k in requests[0].asset_selection or []}
        assert {"resource_hour_busy", "idle_capacity", "warehouse_snapshot"} <= selected
        assert {"billing_hourly", "spend_daily"} <= selected  # read by them / their checks
        assert not selected & {"spend_monthly", "budget_status", "alerts", "egress_daily"}
        assert tick(cursor)[0] == []  # past it: not asked for again


def test_after_a_whole_build_a_telemetry_tick_asks_only_for_what_the_samples_feed(
    marts_after_ingest,
):
    """Once the instance has materialised the models the fed marts read (a day's run built
    them), a telemetry run's marts run leaves them out: nothing they read changed, and each
    would be a step that builds nothing. Those never materialised are still asked for."""
    with dg.DagsterInstance.ephemeral() as instance:
        for name in ("billing_hourly", "run_held_hours"):  # built by an earlier run
            instance.report_runless_asset_event(dg.AssetMaterialization(name))

        def tick(cursor: str | None) -> tuple[list[dg.RunRequest], str | None]:
            context = dg.build_sensor_context(instance=instance, cursor=cursor)
            result = marts_after_ingest.evaluate_tick(context)
            return result.run_requests or [], result.cursor

        cursor = tick(None)[1]
        finished(instance, "telemetry", "telemetry-2", {NOW: "2026-10-06T12:07:00"})
        requests, _ = tick(cursor)
        selected = {k.to_user_string() for k in requests[0].asset_selection or []}
        assert {"resource_hour_busy", "idle_capacity", "warehouse_snapshot"} <= selected
        assert not selected & {"billing_hourly", "run_held_hours"}  # materialised: left out
        assert "spend_daily" in selected  # read by a fed mart's check, never materialised here


def test_telemetry_ticks_between_marts_ticks_load_the_samples_only(marts_after_ingest):
    """By default the marts the samples feed follow the telemetry ticks of 00, 06, 12 and 18 UTC
    (schedules.telemetry_marts_every_hours: 6); a tick of another hour is followed by none (the
    next marts tick, or the daily run, takes in its samples). A telemetry run without a clock
    (launched by hand in the UI) is followed as before."""
    with dg.DagsterInstance.ephemeral() as instance:

        def after(run_id: str, tags: dict[str, str]) -> dg.RunRequest | dg.SkipReason:
            run, event = finished(instance, "telemetry", run_id, tags)
            context = dg.build_run_status_sensor_context(
                sensor_name="marts_after_ingest",
                dagster_event=event,
                dagster_instance=instance,
                dagster_run=run,
            )
            return marts_after_ingest(context)

        between = after("t-0515", {NOW: "2026-10-06T05:15:00"})
        assert isinstance(between, dg.SkipReason)
        assert between.skip_message == (
            "telemetry run t-0515 at 2026-10-06T05:15:00: the marts it feeds are rebuilt after "
            "the ticks of every 6 hours (schedules.telemetry_marts_every_hours)"
        )
        assert isinstance(after("t-1815", {NOW: "2026-10-06T18:15:00"}), dg.RunRequest)
        assert isinstance(after("t-0015", {NOW: "2026-10-07T00:15:00+00:00"}), dg.RunRequest)
        assert isinstance(after("t-hand", {}), dg.RunRequest)


def test_every_hour_is_a_marts_tick_when_the_config_says_1(tmp_path):
    config = write_config(
        tmp_path,
        "warehouse: {kind: duckdb, path: w.duckdb}\nschedules: {telemetry_marts_every_hours: 1}\n",
    )
    sensor = build_definitions(str(config)).get_sensor_def("marts_after_ingest")
    with dg.DagsterInstance.ephemeral() as instance:
        run, event = finished(instance, "telemetry", RUN_ID, {NOW: "2026-10-06T05:15:00"})
        context = dg.build_run_status_sensor_context(
            sensor_name="marts_after_ingest",
            dagster_event=event,
            dagster_instance=instance,
            dagster_run=run,
        )
        assert isinstance(sensor(context), dg.RunRequest)
