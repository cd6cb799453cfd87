"""Alerts: one row each in the `alerts` table, under a stable id, raised once and kept.

Ids say what an alert is about, so that rerunning a day raises nothing new:
`threshold:<budget>:<period>:<pct>`, `forecast:<budget>:<period>`,
`spend_change:<rule>:<group>:<day>`, `efficiency:<rule>:<group>:<iso week>`,
`health:<kind>:<subject>:<day>`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pyarrow as pa

from flopledger.models import query_sql
from flopledger.warehouse import Reader, Warehouse


@dataclass(frozen=True)
class Alert:
    alert_id: str
    kind: str  # threshold, forecast, spend_change, efficiency, health
    subject: str  # budget or rule name
    severity: str
    title: str
    message: str
    channels: list[str]
    details: dict[str, Any] = field(default_factory=dict)


SCHEMA = pa.schema(
    [
        ("alert_id", pa.string()),
        ("kind", pa.string()),
        ("subject", pa.string()),
        ("severity", pa.string()),
        ("title", pa.string()),
        ("message", pa.string()),
        ("details", pa.string()),
        ("channels", pa.list_(pa.string())),
        ("raised_at", pa.timestamp("us")),
    ]
)


def store_alerts(warehouse: Warehouse, alerts: list[Alert], now: datetime) -> int:
    """Insert the alerts whose id is new; those already raised are left as they are."""
    rows = [
        {
            "alert_id": a.alert_id,
            "kind": a.kind,
            "subject": a.subject,
            "severity": a.severity,
            "title": a.title,
            "message": a.message,
            "details": json.dumps(a.details, default=str, sort_keys=True),
            "channels": a.channels,
            "raised_at": now,
        }
        for a in alerts
    ]
    return warehouse.insert_new("alerts", pa.Table.from_pylist(rows, schema=SCHEMA), "alert_id")


def open_alerts(source: Reader | Warehouse) -> list[dict[str, Any]]:
    """Alerts whose row does not yet say every channel has them, oldest first (the delivery
    store may know better: budgets/notify.py's `undelivered`)."""
    return source.query(query_sql("open_alerts")).to_pylist()


def all_alerts(warehouse: Warehouse, since: datetime | None = None) -> list[dict[str, Any]]:
    return warehouse.query(query_sql("alerts_raised_since"), {"since": since}).to_pylist()
