"""When the asset jobs run: billing daily (with a trailing window for late rows), telemetry
hourly (the GPU and TPU samples of the current day), and the marts after each of them.

Each run carries its scheduled execution time as the `flopledger/now` tag: time is an input.
The marts run carries the tag of the run that triggered it. Runs of `flopledger run` (tagged
CLI_TAG) build their own marts, so the sensor leaves them alone.
"""

from datetime import datetime, timedelta
from functools import cache
from typing import Any

import dagster as dg

from flopledger import models
from flopledger.collectors.timeparse import naive_utc
from flopledger.models.lineage import tables_read
from flopledger.pipelines.asset_jobs import INGEST_JOB, MARTS_JOB, TELEMETRY_ASSETS, TELEMETRY_JOB
from flopledger.pipelines.marts.snapshot import SNAPSHOT_ASSET
from flopledger.pipelines.run_tags import CLI_TAG, NOW_TAG
from flopledger.settings import SchedulesConfig

LATE_DAYS = (
    3  # the daily ingest rebuilds the last days' telemetry and jobs; billing takes every unseen row
)


def _now(context: dg.ScheduleEvaluationContext) -> datetime:
    return naive_utc(context.scheduled_execution_time)


def _tag_time(text: str) -> datetime:
    """A run's `flopledger/now` tag as naive UTC."""
    return naive_utc(datetime.fromisoformat(text))


def _range_tags(first: str, last: str, now: datetime) -> dict[str, str]:
    return {
        "dagster/asset_partition_range_start": first,
        "dagster/asset_partition_range_end": last,
        NOW_TAG: now.isoformat(),
    }


def _keys_between(
    partitions: dg.PartitionsDefinition, first: datetime, last: datetime
) -> list[str]:
    keys = set(partitions.get_partition_keys(current_time=last + timedelta(days=1)))
    wanted = [
        (first + timedelta(days=n)).strftime("%Y-%m-%d") for n in range((last - first).days + 1)
    ]
    return [k for k in wanted if k in keys]


def build_schedules(
    partitions: dg.PartitionsDefinition, crons: SchedulesConfig
) -> list[dg.ScheduleDefinition]:
    @dg.schedule(
        name="billing_daily",
        job_name=INGEST_JOB,
        cron_schedule=crons.billing,
        execution_timezone="UTC",
        default_status=dg.DefaultScheduleStatus.RUNNING,
    )
    def billing_daily(context: dg.ScheduleEvaluationContext) -> dg.RunRequest | dg.SkipReason:
        now = _now(context)
        keys = _keys_between(partitions, now - timedelta(days=LATE_DAYS), now - timedelta(days=1))
        if not keys:
            return dg.SkipReason("no partition in the late-arrival window")
        return dg.RunRequest(
            run_key=f"billing-{now:%Y-%m-%d}", tags=_range_tags(keys[0], keys[-1], now)
        )

    @dg.schedule(
        name="telemetry_hourly",
        job_name=TELEMETRY_JOB,
        cron_schedule=crons.telemetry,
        execution_timezone="UTC",
        default_status=dg.DefaultScheduleStatus.RUNNING,
    )
    def telemetry_hourly(context: dg.ScheduleEvaluationContext) -> dg.RunRequest | dg.SkipReason:
        now = _now(context)
        keys = _keys_between(partitions, now, now)
        if not keys:
            return dg.SkipReason(f"{now:%Y-%m-%d} is not a partition")
        return dg.RunRequest(
            run_key=f"telemetry-{now:%Y-%m-%dT%H}",
            partition_key=keys[0],
            tags={NOW_TAG: now.isoformat()},
        )

    return [billing_daily, telemetry_hourly]


PARTITION_TAG = "dagster/partition"
RANGE_TAGS = ("dagster/asset_partition_range_start", "dagster/asset_partition_range_end")


def _partitions_of(run: dg.DagsterRun) -> dict[str, str]:
    """The triggering run's partitions as a range: the marts run's own (its day-grained marts
    are on the same partitions; each builds what changed, warehouse/incremental.py)."""
    first, last = (run.tags.get(tag) for tag in RANGE_TAGS)
    if not (first and last):
        first = last = run.tags.get(PARTITION_TAG)
    return dict(zip(RANGE_TAGS, (first, last), strict=True)) if first and last else {}


MODEL_NAMES = frozenset(m.name for m in models.marts())


def telemetry_fed() -> set[str]:
    """The models that read the GPU or TPU samples, directly or through another model."""
    fed = set(TELEMETRY_ASSETS)
    for model in models.marts():  # in build order: what a model reads comes before it
        if fed & set(model.depends_on):
            fed.add(model.name)
    return fed - set(TELEMETRY_ASSETS)


@cache
def _read_by_fed() -> frozenset[str]:
    """The models the telemetry-fed models and their checks read, in turn, that read no sample
    themselves (each check's SQL parsed once a process)."""
    fed = telemetry_fed()
    read: set[str] = set()
    for model in reversed(models.marts()):  # what they and their checks read, read first
        if model.name in fed or model.name in read:
            checked = (tables_read(models.CHECKS.file(c.name).text) for c in model.checks)
            read |= {t for t in set(model.depends_on).union(*checked) if t in MODEL_NAMES}
    return frozenset(read - fed)


def telemetry_marts(instance: dg.DagsterInstance | None = None) -> list[dg.AssetKey]:
    """What a telemetry run changes: the models that read the GPU or TPU samples, directly or
    through another model (telemetry_fed), and the snapshot.

    The models those and their checks read, which read no sample and so have nothing to build
    after a telemetry run, are asked for only where `instance` has never materialised them (or
    no instance is given): a telemetry run on a warehouse no whole run has built yet (the two
    schedules' first ticks, in either order) then finds its inputs built. On a built
    warehouse they are left out; each would be a Dagster step that plans nothing, the larger
    part of an hourly run's steps."""
    fed = telemetry_fed()
    read = set(_read_by_fed())
    if instance is not None and read:
        records = instance.get_asset_records([dg.AssetKey(n) for n in sorted(read)])
        read -= {
            r.asset_entry.asset_key.to_user_string()
            for r in records
            if r.asset_entry.last_materialization_record is not None
        }
    return [dg.AssetKey(n) for n in sorted(fed | read)] + [dg.AssetKey(SNAPSHOT_ASSET)]


def marts_tick(now: datetime, every_hours: int) -> bool:
    """Whether the telemetry tick at `now` is followed by the marts the samples feed: the ticks
    of the UTC hours `every_hours` divides (`schedules.telemetry_marts_every_hours`)."""
    return now.hour % every_hours == 0


def build_sensors(
    jobs: dict[str, Any], telemetry_marts_every_hours: int = 1
) -> list[dg.SensorDefinition]:
    """`marts_after_ingest`: each successful scheduled ingest run is followed by one marts run
    (keyed by the triggering run, so never twice) on the same partitions; a telemetry run, by
    only the marts telemetry feeds, and only at a marts tick (`marts_tick`): the ticks between
    load the samples, and the next marts run takes in every change since its last (each mart
    builds what changed, warehouse/incremental.py)."""
    every = telemetry_marts_every_hours

    @dg.run_status_sensor(
        name="marts_after_ingest",
        run_status=dg.DagsterRunStatus.SUCCESS,
        monitored_jobs=[jobs[INGEST_JOB], jobs[TELEMETRY_JOB]],
        request_job=jobs[MARTS_JOB],
        default_status=dg.DefaultSensorStatus.RUNNING,
    )
    def marts_after_ingest(context: dg.RunStatusSensorContext) -> dg.RunRequest | dg.SkipReason:
        run = context.dagster_run
        if run.tags.get(CLI_TAG):
            return dg.SkipReason(
                f"run {run.run_id} came from flopledger run, which builds its marts"
            )
        now = run.tags.get(NOW_TAG)
        if run.job_name == TELEMETRY_JOB and now and not marts_tick(_tag_time(now), every):
            return dg.SkipReason(
                f"telemetry run {run.run_id} at {now}: the marts it feeds are rebuilt after "
                f"the ticks of every {every} hours (schedules.telemetry_marts_every_hours)"
            )
        return dg.RunRequest(
            run_key=f"marts-after-{run.run_id}",
            tags={**({NOW_TAG: now} if now else {}), **_partitions_of(run)},
            asset_selection=(
                telemetry_marts(context.instance) if run.job_name == TELEMETRY_JOB else None
            ),
        )

    return [marts_after_ingest]
