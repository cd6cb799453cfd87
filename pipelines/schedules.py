"""The schedules of the asset jobs: billing and marts daily, telemetry hourly (the raw group's current-day partition).

Each run carries its scheduled execution time as the `flopledger/now` tag: time is an input.
"""

from datetime import datetime, timedelta

import dagster as dg

from collectors.timeparse import naive_utc
from pipelines.asset_jobs import INGEST_JOB, MARTS_JOB
from pipelines.run_tags import NOW_TAG

LATE_DAYS = (
    3  # the daily ingest rebuilds the last days' telemetry and jobs; billing takes every unseen row
)


def _now(context: dg.ScheduleEvaluationContext) -> datetime:
    return naive_utc(context.scheduled_execution_time)


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


def build_schedules(partitions: dg.PartitionsDefinition) -> list[dg.ScheduleDefinition]:
    @dg.schedule(
        name="billing_daily",
        job_name=INGEST_JOB,
        cron_schedule="0 5 * * *",
        execution_timezone="UTC",
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
        name="marts_daily", job_name=MARTS_JOB, cron_schedule="0 6 * * *", execution_timezone="UTC"
    )
    def marts_daily(context: dg.ScheduleEvaluationContext) -> dg.RunRequest:
        now = _now(context)
        return dg.RunRequest(run_key=f"marts-{now:%Y-%m-%d}", tags={NOW_TAG: now.isoformat()})

    @dg.schedule(
        name="telemetry_hourly",
        job_name=INGEST_JOB,
        cron_schedule="15 * * * *",
        execution_timezone="UTC",
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

    return [billing_daily, marts_daily, telemetry_hourly]
