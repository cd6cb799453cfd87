"""Run tags flopledger sets and reads: the run's clock, and a backfill's strict window."""

from datetime import datetime

import dagster as dg

from flopledger.collectors.timeparse import naive_utc
from flopledger.pipelines.resources import Flopledger

# The run's clock: a schedule sets it from its scheduled execution time (time is an input).
NOW_TAG = "flopledger/now"
# Keep every source to the run's partition days (an explicit backfill range).
WINDOW_ONLY_TAG = "flopledger/window_only"
# Rebuild every model whole (`flopledger run --full`): the reference an incremental build equals.
FULL_TAG = "flopledger/full"
# Rebuild the run's partitions of the day-grained models whether or not they changed (as a
# backfill does).
REBUILD_TAG = "flopledger/rebuild"
# A run `flopledger run` made (it builds the marts itself: no sensor follows it up).
CLI_TAG = "flopledger/cli"
# Why a closed month the run changes moved (closed_month_changes.cause; `flopledger restate`
# sets its own): without it, late rows (pipelines/marts/closed_months.py).
CAUSE_TAG = "flopledger/closed_month_cause"


def run_now(context: dg.AssetExecutionContext, flopledger: Flopledger) -> datetime:
    """The `flopledger/now` tag when a schedule set it, else the resource's clock."""
    tag = context.run.tags.get(NOW_TAG)
    return naive_utc(datetime.fromisoformat(tag)) if tag else flopledger.now()


def window_only(context: dg.AssetExecutionContext) -> bool:
    return context.run.tags.get(WINDOW_ONLY_TAG) == "true"
