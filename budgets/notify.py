"""Deliver alerts to webhooks exactly once.

Each (alert, channel) pair is posted until it succeeds, then never again. Two records say
it succeeded: the alerts table (`deliveries` per channel, `notified_at` once every channel
has it) and the sensor's cursor. Either one is enough to skip a pair, so a restarted sensor
(cursor kept, or table kept) and a rerun day (same alert ids, nothing new inserted) post
nothing twice. A failed post is retried on a later tick after a backoff that doubles from
`BACKOFF_S`. Webhook URLs are read from the environment and never logged or stored.

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
from flopledger.budgets.payloads import payload_for
from flopledger.models import query_sql
from flopledger.warehouse import Warehouse

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


def _state(row: dict[str, Any], cursor: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per channel: the table's record merged with the cursor's (delivered wins; most attempts)."""
    state = json.loads(row["deliveries"] or "{}")
    for name, c in cursor.get(row["alert_id"], {}).items():
        mine = state.setdefault(name, {})
        mine["delivered_at"] = mine.get("delivered_at") or c.get("delivered_at")
        if c.get("attempts", 0) > mine.get("attempts", 0):
            mine.update(
                attempts=c["attempts"],
                next_attempt_at=c.get("next_attempt_at"),
                last_error=c.get("last_error"),
            )
    return state


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
    mine["attempts"] = mine.get("attempts", 0) + 1
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


def _deliver_one(
    row: dict[str, Any],
    state: dict[str, dict[str, Any]],
    budgets: BudgetsFile,
    env: Mapping[str, str],
    now: datetime,
    post: Post,
    outcome: Outcome,
) -> None:
    for name in row["channels"] or []:
        mine = state.setdefault(name, {})
        label = f"{row['alert_id']} -> {name}"
        if mine.get("delivered_at"):
            continue
        url = channel_url(budgets.channels[name], env) if name in budgets.channels else None
        due = mine.get("next_attempt_at")
        if url is None or (due and datetime.fromisoformat(due) > now):
            outcome.waiting.append(label)
            continue
        (
            outcome.sent
            if _try(name, row, mine, url, budgets.channels[name].kind, now, post)
            else outcome.failed
        ).append(label)


def _save(warehouse: Warehouse, row: dict[str, Any], state: dict[str, Any], now: datetime) -> None:
    done = all(state.get(c, {}).get("delivered_at") for c in row["channels"] or [])
    try:
        warehouse.execute(
            query_sql("alert_delivery_update"),
            {
                "deliveries": json.dumps(state, sort_keys=True),
                "notified_at": now if done and row["channels"] else None,
                "alert_id": row["alert_id"],
            },
        )
    except Exception as exc:  # noqa: BLE001 - the cursor still holds it; the next tick writes it
        log.warning(
            "alerts table not updated for %s (%s); the cursor keeps it",
            row["alert_id"],
            exc.__class__.__name__,
        )


def deliver_pending(
    warehouse: Warehouse,
    budgets: BudgetsFile,
    env: Mapping[str, str],
    now: datetime,
    cursor: dict[str, Any],
    post: Post = post_json,
) -> tuple[dict[str, Any], Outcome]:
    """Post every open alert to each of its channels not yet delivered. Returns the new cursor."""
    outcome, new_cursor = Outcome(), {}
    for row in open_alerts(warehouse):
        state = _state(row, cursor)
        _deliver_one(row, state, budgets, env, now, post, outcome)
        if state:
            new_cursor[row["alert_id"]] = state
        if json.dumps(state, sort_keys=True) != json.dumps(
            json.loads(row["deliveries"] or "{}"), sort_keys=True
        ):
            _save(warehouse, row, state, now)
    return new_cursor, outcome
