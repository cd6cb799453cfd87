"""Run tags flopledger sets and reads: the run's clock, and a backfill's strict window."""

from datetime import UTC, datetime

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


# The tag Dagster puts on every run of a backfill (the UI's, `dagster job backfill`'s).
BACKFILL_TAG = "dagster/backfill"


def _backfill_time(context: dg.AssetExecutionContext) -> datetime | None:
    """When the run's backfill was submitted: one clock for every run of it."""
    backfill_id = context.run.tags.get(BACKFILL_TAG)
    backfill = context.instance.get_backfill(backfill_id) if backfill_id else None
    if backfill is None:
        return None
    return datetime.fromtimestamp(backfill.backfill_timestamp, UTC).replace(
        tzinfo=None, microsecond=0
    )


def run_now(context: dg.AssetExecutionContext, flopledger: Flopledger) -> datetime:
    """The run's clock: its `flopledger/now` tag (a schedule, a sensor and `flopledger run`
    set it). A run without one (a backfill or a materialisation from the UI) gets it here, at
    its first step that asks: the backfill's submission time for a backfill's run (the same for
    all its runs), else the resource's clock; it is written to the run's tags, so every later
    step reads the same clock and the run carries it like any scheduled run."""
    tag = context.run.tags.get(NOW_TAG)
    stored = None if tag else context.instance.get_run_by_id(context.run_id)
    tag = tag or (stored.tags.get(NOW_TAG) if stored is not None else None)
    if tag:
        return naive_utc(datetime.fromisoformat(tag))
    now = _backfill_time(context) or flopledger.now()
    if stored is not None:  # (a test's bare context has no stored run to tag)
        context.instance.add_run_tags(context.run_id, {NOW_TAG: now.isoformat()})
    return now


def window_only(context: dg.AssetExecutionContext) -> bool:
    return context.run.tags.get(WINDOW_ONLY_TAG) == "true"
