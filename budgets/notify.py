"""Deliver alerts to webhooks exactly once, never waiting on the warehouse's writers.

Each (alert, channel) pair is posted until it succeeds, then never again. The notifier reads
the open alerts from the published snapshot and records each post in the delivery store
(budgets/delivery_store.py, beside Dagster's own files), never in the warehouse, so a run
writing the warehouse neither holds it up nor is held up by it. The alerts asset copies the
store's record into the alerts table (`deliveries` per channel, `notified_at` once every
channel has it) at the next marts run. Either record is enough to skip a pair, so a restarted
daemon, a warehouse rebuilt from an older one and a rerun day (same alert ids, nothing new
inserted) post nothing twice. A failed post is retried on a later tick after a backoff that
doubles from `BACKOFF_S`. Webhook URLs are read from the environment and never logged or
stored.

A post waits at most its `timeout_s` for the receiver (the sensors pass flopledger.yaml's
`network.webhook_deadline_s`; `WEBHOOK_DEADLINE_S` otherwise), and is not retried within the
call (requests does not retry): a refused connection fails at once, a silent receiver after
the deadline, each said in one line naming the receiver's host (never its path, which holds
the secret) and what happened.
"""

from __future__ import annotations

import json
import logging
import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import requests

from flopledger.budgets.alerts import open_alerts
from flopledger.budgets.budget_file import BudgetsFile, Channel
from flopledger.budgets.delivery_store import DeliveryStore
from flopledger.budgets.payloads import payload_for
from flopledger.models import query_sql
from flopledger.warehouse import Reader, Warehouse

log = logging.getLogger(__name__)

BACKOFF_S = 60
MAX_BACKOFF_S = 3600
# How long a post waits to connect and for each read of the answer (seconds). Meant to follow
# the setting `network.deadline_s` once it exists; until then this default.
WEBHOOK_DEADLINE_S = 10.0
NO_ANSWER = "no answer within"  # the words of a receiver that never answered
Post = Callable[[str, dict[str, Any]], str | None]


def _receiver(url: str) -> str:
    """scheme://host[:port] of a webhook URL: where it went, without the secret path."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}" + (f":{parts.port}" if parts.port else "")


def _what_happened(exc: requests.RequestException, timeout_s: float) -> str:
    causes: list[BaseException] = []
    cause: BaseException | None = exc
    while cause is not None and len(causes) < 16:
        causes.append(cause)
        cause = cause.__cause__ or cause.__context__
        if cause is None and causes[-1].args and isinstance(causes[-1].args[0], BaseException):
            cause = causes[-1].args[0]  # requests wraps urllib3's error as its first arg
    if any(isinstance(c, ConnectionRefusedError) for c in causes):
        return "connection refused (nothing listens there)"
    if isinstance(exc, requests.Timeout):
        return f"{NO_ANSWER} {timeout_s:g} s"
    if any(isinstance(c, socket.gaierror) for c in causes):
        return "host not found"
    return exc.__class__.__name__


def post_json(
    url: str, payload: dict[str, Any], timeout_s: float = WEBHOOK_DEADLINE_S
) -> str | None:
    """POST the payload; None on success, else a one-line reason naming the receiver's host
    (never the URL's path or query, where webhook secrets are)."""
    try:
        response = requests.post(url, json=payload, timeout=timeout_s)
    except requests.RequestException as exc:
        return f"{_receiver(url)}: {_what_happened(exc, timeout_s)}"
    return None if response.ok else f"HTTP {response.status_code}"


def backoff(attempts: int) -> timedelta:
    return timedelta(seconds=min(BACKOFF_S * 2 ** max(attempts - 1, 0), MAX_BACKOFF_S))


@dataclass
class Outcome:
    sent: list[str] = field(default_factory=list)  # "alert_id -> channel"
    failed: list[str] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)


def channel_url(channel: Channel, env: Mapping[str, str]) -> str | None:
    return env.get(channel.url_env) or None


def _merged(*records: Mapping[str, Any]) -> dict[str, Any]:
    """One pair's record from several (the warehouse row's, the store's): delivered in any is
    delivered; the rest from the one with the most attempts."""
    known = [dict(r) for r in records if r]
    if not known:
        return {}
    merged = max(known, key=lambda r: r.get("attempts") or 0)
    merged["delivered_at"] = next((r["delivered_at"] for r in known if r.get("delivered_at")), None)
    return merged


def _states(rows: list[dict[str, Any]], store: DeliveryStore) -> dict[str, dict[str, Any]]:
    """Per alert and channel: what the warehouse row and the delivery store say, merged."""
    recorded = store.states(r["alert_id"] for r in rows)
    states = {}
    for row in rows:
        table = json.loads(row["deliveries"] or "{}")
        mine = recorded.get(row["alert_id"], {})
        states[row["alert_id"]] = {
            name: _merged(table.get(name, {}), mine.get(name, {}))
            for name in sorted({*table, *mine, *(row["channels"] or [])})
        }
    return states


def _delivered(row: dict[str, Any], state: dict[str, Any]) -> bool:
    """Every one of its channels has it (an alert with none stays open: nobody was told)."""
    channels = row["channels"] or []
    return bool(channels) and all(state.get(c, {}).get("delivered_at") for c in channels)


def _last_delivery(row: dict[str, Any], state: dict[str, Any]) -> datetime | None:
    """When the last of the alert's channels got it; None while any waits (or it has none)."""
    if not _delivered(row, state):
        return None
    return max(datetime.fromisoformat(state[c]["delivered_at"]) for c in row["channels"])


def pending(
    source: Reader | Warehouse, store: DeliveryStore
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The open alerts (the warehouse's record says not every channel has them) that the
    delivery store does not say were delivered since, oldest first, each with its merged
    per-channel record."""
    rows = open_alerts(source)
    states = _states(rows, store)
    return [(r, states[r["alert_id"]]) for r in rows if not _delivered(r, states[r["alert_id"]])]


def undelivered(source: Reader | Warehouse, store: DeliveryStore) -> list[dict[str, Any]]:
    """`pending`'s alerts alone."""
    return [row for row, _ in pending(source, store)]


def delivered_at(rows: list[dict[str, Any]], store: DeliveryStore) -> dict[str, datetime]:
    """When each of these alerts reached the last of its channels, for those that have: the
    warehouse's `notified_at`, else what the delivery store says since."""
    states, sent = _states(rows, store), {}
    for row in rows:
        state = states[row["alert_id"]]
        if row.get("notified_at"):
            sent[row["alert_id"]] = row["notified_at"]
        elif (last := _last_delivery(row, state)) is not None:
            sent[row["alert_id"]] = last
    return sent


def _try(
    name: str,
    row: dict[str, Any],
    mine: dict[str, Any],
    url: str,
    kind: str,
    now: datetime,
    post: Post,
) -> bool:
    error = post(url, payload_for(kind, row))
    mine["attempts"] = (mine.get("attempts") or 0) + 1
    if error is None:
        mine.update(delivered_at=now.isoformat(), next_attempt_at=None, last_error=None)
        return True
    mine.update(next_attempt_at=(now + backoff(mine["attempts"])).isoformat(), last_error=error)
    log.warning(
        "alert %s -> %s: delivery failed (%s); retrying after %s",
        row["alert_id"],
        name,
        error,
        mine["next_attempt_at"],
    )
    return False


def _due(record: Mapping[str, Any], now: datetime) -> bool:
    due = record.get("next_attempt_at")
    return not due or datetime.fromisoformat(due) <= now


def _deliver_one(
    row: dict[str, Any],
    state: dict[str, dict[str, Any]],
    store: DeliveryStore,
    budgets: BudgetsFile,
    env: Mapping[str, str],
    now: datetime,
    post: Post,
    outcome: Outcome,
) -> None:
    for name in row["channels"] or []:
        label = f"{row['alert_id']} -> {name}"
        if state.get(name, {}).get("delivered_at"):
            continue
        url = channel_url(budgets.channels[name], env) if name in budgets.channels else None
        if url is None or not _due(state.get(name, {}), now):
            outcome.waiting.append(label)
            continue
        with store.claim(row["alert_id"], name) as mine:
            # Read again under the claim: another notifier may have just posted this pair.
            mine.update(_merged(state.get(name, {}), mine))
            if mine.get("delivered_at"):
                continue
            if not _due(mine, now):
                outcome.waiting.append(label)
                continue
            sent = _try(name, row, mine, url, budgets.channels[name].kind, now, post)
        (outcome.sent if sent else outcome.failed).append(label)


def deliver_pending(
    source: Reader | Warehouse,
    store: DeliveryStore,
    budgets: BudgetsFile,
    env: Mapping[str, str],
    now: datetime,
    post: Post = post_json,
) -> Outcome:
    """Post every open alert to each of its channels not yet delivered, recording each post in
    the store. `source` is what the alerts are read from: the published snapshot's reader for
    the sensor (never the warehouse's writer, so that no writer waits on it nor it on them)."""
    outcome = Outcome()
    rows = open_alerts(source)
    states = _states(rows, store)
    for row in rows:
        _deliver_one(row, states[row["alert_id"]], store, budgets, env, now, post, outcome)
    return outcome


def record_deliveries(warehouse: Warehouse, store: DeliveryStore) -> int:
    """Copy the store's record of the open alerts into the warehouse's alerts table (run by the
    alerts asset, a writer in the queue): their per-channel `deliveries` and, once every channel
    has it, `notified_at` (when the last was delivered). Returns the rows updated."""
    rows = open_alerts(warehouse)
    states, updated = _states(rows, store), 0
    for row in rows:
        state = {name: record for name, record in states[row["alert_id"]].items() if record}
        if state == json.loads(row["deliveries"] or "{}"):
            continue
        last = _last_delivery(row, state)
        warehouse.execute(
            query_sql("alert_delivery_update"),
            {
                "deliveries": json.dumps(state, sort_keys=True),
                "notified_at": last,
                "alert_id": row["alert_id"],
            },
        )
        updated += 1
    return updated
