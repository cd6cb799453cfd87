"""What a webhook receives: a Slack-compatible message, or a generic JSON document."""

from __future__ import annotations

import json
from typing import Any

EMOJI = {"info": ":information_source:", "warning": ":warning:", "critical": ":rotating_light:"}


def _when(value: Any) -> str | None:
    return (
        None if value is None else value.isoformat() if hasattr(value, "isoformat") else str(value)
    )


def generic_payload(alert: dict[str, Any]) -> dict[str, Any]:
    """The alert as one JSON object; `alert_id` lets a receiver drop a repeat."""
    return {
        "source": "flopledger",
        "type": "alert",
        "alert_id": alert["alert_id"],
        "kind": alert["kind"],
        "subject": alert["subject"],
        "severity": alert["severity"],
        "title": alert["title"],
        "message": alert["message"],
        "raised_at": _when(alert["raised_at"]),
        "details": json.loads(alert["details"] or "{}"),
    }


def slack_payload(alert: dict[str, Any]) -> dict[str, Any]:
    """An incoming-webhook message: `text` for notifications, blocks for the channel."""
    head = f"{EMOJI.get(alert['severity'], '')} *{alert['title']}*".strip()
    return {
        "text": f"{alert['title']}: {alert['message']}",
        "blocks": [
            {"type": "section", "text": {"type": "mrkdwn", "text": f"{head}\n{alert['message']}"}},
            {
                "type": "context",
                "elements": [{"type": "mrkdwn", "text": f"flopledger · `{alert['alert_id']}`"}],
            },
        ],
    }


def run_failure_alert(job_name: str, run_id: str, error: str) -> dict[str, Any]:
    """A failed pipeline run, shaped like an alert so that both payloads apply."""
    return {
        "alert_id": f"run_failure:{run_id}",
        "kind": "run_failure",
        "subject": job_name,
        "severity": "critical",
        "title": f"flopledger run failed: {job_name}",
        "message": f"run {run_id}: {error}",
        "raised_at": None,
        "details": json.dumps({"job": job_name, "run_id": run_id}),
    }


def payload_for(kind: str, alert: dict[str, Any]) -> dict[str, Any]:
    return slack_payload(alert) if kind == "slack" else generic_payload(alert)
