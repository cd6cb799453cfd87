"""Sensors: post each new alert to its webhooks exactly once, and report failed runs.

The alert sensor keeps per-(alert, channel) delivery state in its cursor and in the alerts
table (budgets/notify.py). URLs come from environment variables at each tick.
"""

import functools
import json
import os
import time

import dagster as dg

from flopledger.budgets.budget_file import load_budgets
from flopledger.budgets.notify import NO_ANSWER, channel_url, deliver_pending, post_json
from flopledger.budgets.payloads import payload_for, run_failure_alert
from flopledger.clients.network import webhook_deadline
from flopledger.pipelines.asset_jobs import WRITER_TAGS
from flopledger.pipelines.resources import Flopledger
from flopledger.warehouse import WarehouseLocked

RUN_FAILURE_TRIES = 3
# A run in one of these may be writing the warehouse, or about to.
UNFINISHED = [
    dg.DagsterRunStatus.QUEUED,
    dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED,
    dg.DagsterRunStatus.CANCELING,
]


def _writing_run(context: dg.SensorEvaluationContext) -> str | None:
    """A warehouse-writing run queued or under way, if any (None under a test's bare context).

    The run queue lets one writer at a time at the warehouse; the notifier writes it too
    (delivery state), outside the queue, so it waits its turn: a run that found the file
    held by the sensor would fail."""
    try:
        instance = context.instance
    except dg.DagsterInvariantViolationError:  # built without an instance
        return None
    runs = instance.get_runs(filters=dg.RunsFilter(statuses=UNFINISHED, tags=WRITER_TAGS), limit=1)
    return runs[0].run_id if runs else None


@dg.sensor(
    name="alert_notifier",
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.RUNNING,
)
def alert_notifier(context: dg.SensorEvaluationContext, flopledger: Flopledger) -> dg.SkipReason:
    cursor = json.loads(context.cursor) if context.cursor else {}
    running = _writing_run(context)
    if running:
        return dg.SkipReason(f"run {running} writes the warehouse, retrying next tick")
    budgets = load_budgets(flopledger.config().budgets)  # (sets the network's deadlines)
    post = functools.partial(post_json, timeout_s=webhook_deadline())
    try:
        new_cursor, outcome = deliver_pending(
            flopledger.warehouse(), budgets, os.environ, flopledger.now(), cursor, post=post
        )
    except WarehouseLocked as exc:  # a run is writing: nothing is lost, the next tick sends
        return dg.SkipReason(f"warehouse busy, retrying next tick ({exc})")
    context.update_cursor(json.dumps(new_cursor, sort_keys=True))
    for label in outcome.failed:
        context.log.warning(f"delivery failed, will retry: {label}")
    return dg.SkipReason(
        f"sent {len(outcome.sent)}, failed {len(outcome.failed)}, waiting {len(outcome.waiting)}"
    )


def _post_with_retries(url: str, payload: dict) -> str | None:
    """Up to RUN_FAILURE_TRIES posts, 1 s then 2 s apart (a few seconds for a refused
    connection); a receiver that never answered is not asked again (another deadline)."""
    error = None
    for attempt in range(RUN_FAILURE_TRIES):
        if attempt:
            time.sleep(2 ** (attempt - 1))
        error = post_json(url, payload, timeout_s=webhook_deadline())
        if error is None or NO_ANSWER in error:
            return error
    return error


@dg.run_failure_sensor(name="run_failure_notifier", default_status=dg.DefaultSensorStatus.RUNNING)
def run_failure_notifier(context: dg.RunFailureSensorContext, flopledger: Flopledger) -> None:
    """Each failed run once (the run-failure sensor's own cursor), to every failure channel."""
    budgets = load_budgets(flopledger.config().budgets)
    message = (context.failure_event.message or "failed").splitlines()[0]
    alert = run_failure_alert(context.dagster_run.job_name, context.dagster_run.run_id, message)
    for name in budgets.failure_channels():
        channel = budgets.channels[name]
        url = channel_url(channel, os.environ)
        if url is None:
            context.log.warning(f"run failure not sent to {name}: ${channel.url_env} is not set")
            continue
        error = _post_with_retries(url, payload_for(channel.kind, alert))
        if error:
            context.log.warning(f"run failure not delivered to {name} ({error})")


SENSORS = [alert_notifier, run_failure_notifier]
