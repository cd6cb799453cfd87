"""Sensors: post each new alert to its webhooks exactly once, and report failed runs.

The alert sensor reads the published snapshot and keeps per-(alert, channel) delivery state in
the delivery store beside Dagster's files (budgets/notify.py, budgets/delivery_store.py). URLs
come from environment variables at each tick.
"""

import functools
import os
import time

import dagster as dg

from flopledger.budgets.budget_file import load_budgets
from flopledger.budgets.delivery_store import DeliveryStore
from flopledger.budgets.notify import NO_ANSWER, channel_url, deliver_pending, post_json
from flopledger.budgets.payloads import payload_for, run_failure_alert
from flopledger.clients.network import webhook_deadline
from flopledger.pipelines.resources import Flopledger
from flopledger.warehouse import NoWarehouse, open_warehouse

RUN_FAILURE_TRIES = 3


@dg.sensor(
    name="alert_notifier",
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.RUNNING,
)
def alert_notifier(context: dg.SensorEvaluationContext, flopledger: Flopledger) -> dg.SkipReason:
    """Every open alert the published snapshot holds, posted to each channel not yet delivered
    (the delivery store says which). It never opens the warehouse for writing and never looks
    at the run queue: a writer running or queued neither delays it nor is locked out by it."""
    config = flopledger.config()  # (sets the network's deadlines)
    budgets = load_budgets(config.budgets)
    post = functools.partial(post_json, timeout_s=webhook_deadline())
    reader = open_warehouse(config.warehouse).reader()
    try:
        outcome = deliver_pending(
            reader,
            DeliveryStore.of(config),
            budgets,
            os.environ,
            flopledger.now(),
            post=post,
        )
    except NoWarehouse as exc:  # nothing published yet: nothing to send
        return dg.SkipReason(f"nothing published yet ({exc})")
    finally:
        reader.close()
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
