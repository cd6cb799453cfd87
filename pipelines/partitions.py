"""Daily partitions by UTC usage day, for whatever days the inputs hold.

The partition set is not hard-coded: the CLI builds the definitions for exactly the days
its inputs hold; Dagster's own tools (the UI, the daemon) start at the config's
`history_start` (the simulator writes it), else 90 days ago. Loading them never opens the
warehouse.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import dagster as dg


def daily_partitions(start: date, end: date | None = None) -> dg.DailyPartitionsDefinition:
    """Days from `start` to `end` inclusive (or to today, when `end` is None).

    Dagster has no partition after the current time's day (plus end_offset) whatever the
    end date, so days after today (a simulated year, a clock behind the data) get an offset
    that reaches `end`; without it a run for such a day finds no partition to build."""
    if end is None:
        return dg.DailyPartitionsDefinition(start_date=start.isoformat(), end_offset=1)
    ahead = (end - datetime.now(UTC).date()).days + 1
    return dg.DailyPartitionsDefinition(
        start_date=start.isoformat(),
        end_date=(end + timedelta(days=1)).isoformat(),
        end_offset=max(0, ahead),
    )


def window_days(context: dg.AssetExecutionContext) -> list[date]:
    """The UTC days of the partition (range) being materialised."""
    window = context.partition_time_window
    days, day = [], window.start.date()
    while day < window.end.date():
        days.append(day)
        day += timedelta(days=1)
    return days


def daily_raw_asset(name: str, partitions: dg.PartitionsDefinition, description: str) -> Any:
    """The decorator every raw source asset uses: daily partitions, materialised as one run
    over a range (a backfill of a year is one run, not 365)."""
    return dg.asset(
        name=name,
        group_name="raw",
        partitions_def=partitions,
        backfill_policy=dg.BackfillPolicy.single_run(),
        kinds={"duckdb"},
        description=description,
    )
