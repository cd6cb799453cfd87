"""The schedules evaluated at fixed ticks: the partitions, run key and clock each run asks for.

Partitions start on 2026-10-03 (a Saturday). The billing schedule asks for the three UTC days
before its tick's day (late rows), clipped at the first partition; the telemetry schedule for
its tick's day. Every expectation below is worked out by hand from those two rules.
"""

from datetime import UTC, date, datetime, timedelta, timezone

import dagster as dg
import pytest

from flopledger.pipelines.definitions import build_definitions
from tests.conftest import write_config

FIRST_DAY = date(2026, 10, 3)
START = "dagster/asset_partition_range_start"
END = "dagster/asset_partition_range_end"
NOW = "flopledger/now"


@pytest.fixture(scope="module")
def defs(tmp_path_factory) -> dg.Definitions:
    root = tmp_path_factory.mktemp("schedules")
    config = write_config(
        root,
        "warehouse: {kind: duckdb, path: w.duckdb}\n"
        "schedules: {billing: '30 6 * * *', telemetry: '7 */2 * * *'}\n",
    )
    return build_definitions(str(config), start=FIRST_DAY)  # open-ended, as the daemon loads it


def tick(defs: dg.Definitions, name: str, at: datetime) -> dg.RunRequest | dg.SkipReason:
    schedule = defs.get_schedule_def(name)
    return schedule(dg.build_schedule_context(scheduled_execution_time=at))


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def CEST(*args: int) -> datetime:  # noqa: N802 - named as the zone
    return datetime(*args, tzinfo=timezone(timedelta(hours=2)))


def test_crons_come_from_the_config(defs):
    billing = defs.get_schedule_def("billing_daily")
    telemetry = defs.get_schedule_def("telemetry_hourly")
    assert (billing.cron_schedule, billing.execution_timezone) == ("30 6 * * *", "UTC")
    assert (telemetry.cron_schedule, telemetry.execution_timezone) == ("7 */2 * * *", "UTC")
    assert (billing.job_name, telemetry.job_name) == ("ingest", "telemetry")


def test_billing_asks_for_the_three_days_before_its_tick(defs):
    request = tick(defs, "billing_daily", utc(2026, 10, 6, 6, 30))
    assert isinstance(request, dg.RunRequest)
    assert request.run_key == "billing-2026-10-06"
    assert request.tags == {START: "2026-10-03", END: "2026-10-05", NOW: "2026-10-06T06:30:00"}
    assert request.partition_key is None  # a range, in the tags: one run, not three


@pytest.mark.parametrize(
    ("at", "run_key", "first", "last", "now"),
    [
        # a month later: the same three-day shape, across a month end
        (
            utc(2026, 11, 2, 6, 30),
            "billing-2026-11-02",
            "2026-10-30",
            "2026-11-01",
            "2026-11-02T06:30:00",
        ),
        # the first and the last second of a UTC day ask for the same days
        (
            utc(2026, 10, 8, 0, 0),
            "billing-2026-10-08",
            "2026-10-05",
            "2026-10-07",
            "2026-10-08T00:00:00",
        ),
        (
            utc(2026, 10, 8, 23, 59, 59),
            "billing-2026-10-08",
            "2026-10-05",
            "2026-10-07",
            "2026-10-08T23:59:59",
        ),
        # clipped at the first partition day: 10-02 is not a partition, then 10-01 neither
        (
            utc(2026, 10, 5, 6, 30),
            "billing-2026-10-05",
            "2026-10-03",
            "2026-10-04",
            "2026-10-05T06:30:00",
        ),
        (
            utc(2026, 10, 4, 6, 30),
            "billing-2026-10-04",
            "2026-10-03",
            "2026-10-03",
            "2026-10-04T06:30:00",
        ),
        # an aware tick in another zone counts by its UTC day (01:00 +02:00 is 10-07 23:00 UTC)
        (
            CEST(2026, 10, 8, 1, 0),
            "billing-2026-10-07",
            "2026-10-04",
            "2026-10-06",
            "2026-10-07T23:00:00",
        ),
    ],
)
def test_billing_window(defs, at, run_key, first, last, now):
    request = tick(defs, "billing_daily", at)
    assert isinstance(request, dg.RunRequest)
    assert request.run_key == run_key
    assert request.tags == {START: first, END: last, NOW: now}


@pytest.mark.parametrize("at", [utc(2026, 10, 3, 6, 30), utc(2026, 10, 1, 6, 30)])
def test_billing_skips_before_any_partition(defs, at):
    # 10-03's window is 09-30..10-02: all before the first partition day
    result = tick(defs, "billing_daily", at)
    assert isinstance(result, dg.SkipReason)
    assert result.skip_message == "no partition in the late-arrival window"


@pytest.mark.parametrize(
    ("at", "run_key", "partition", "now"),
    [
        (utc(2026, 10, 6, 5, 7), "telemetry-2026-10-06T05", "2026-10-06", "2026-10-06T05:07:00"),
        # the first partition day
        (utc(2026, 10, 3, 0, 7), "telemetry-2026-10-03T00", "2026-10-03", "2026-10-03T00:07:00"),
        (utc(2026, 10, 31, 23, 7), "telemetry-2026-10-31T23", "2026-10-31", "2026-10-31T23:07:00"),
        # 00:07 +02:00 is the previous UTC day's 22:07
        (CEST(2026, 10, 7, 0, 7), "telemetry-2026-10-06T22", "2026-10-06", "2026-10-06T22:07:00"),
    ],
)
def test_telemetry_asks_for_its_tick_day(defs, at, run_key, partition, now):
    request = tick(defs, "telemetry_hourly", at)
    assert isinstance(request, dg.RunRequest)
    assert request.run_key == run_key
    assert request.partition_key == partition
    assert request.tags == {NOW: now}


def test_two_telemetry_ticks_in_an_hour_share_a_run_key(defs):
    # the run key is the UTC hour: a second tick in the same hour asks for no second run
    first = tick(defs, "telemetry_hourly", utc(2026, 10, 6, 5, 7))
    second = tick(defs, "telemetry_hourly", utc(2026, 10, 6, 5, 37))
    assert first.run_key == second.run_key == "telemetry-2026-10-06T05"


def test_telemetry_skips_before_the_first_partition(defs):
    result = tick(defs, "telemetry_hourly", utc(2026, 10, 2, 23, 7))
    assert isinstance(result, dg.SkipReason)
    assert result.skip_message == "2026-10-02 is not a partition"
