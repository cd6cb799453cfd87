"""Alerts in words, for `flopledger alerts` and the end of `flopledger run`."""

from __future__ import annotations

from typing import Any

from flopledger.budgets.delivery_store import DeliveryStore
from flopledger.budgets.notify import undelivered
from flopledger.warehouse import Warehouse


def alert_line(alert: dict[str, Any]) -> str:
    when = alert["raised_at"].strftime("%Y-%m-%d %H:%M") if alert.get("raised_at") else ""
    return f"{alert['severity'].upper():<8} {when}  {alert['title']}\n{'':<10}{alert['message']}  [{alert['alert_id']}]"


def alert_lines(warehouse: Warehouse, store: DeliveryStore) -> list[str]:
    """Open alerts (not yet delivered to every channel) as report lines; none when there are none.

    `flopledger run` appends these to its report (cli/run_report.py)."""
    try:
        alerts = undelivered(warehouse, store)
    except Exception:  # noqa: BLE001 - an older warehouse without the alerts table has none to show
        return []
    if not alerts:
        return []
    return ["", f"open alerts: {len(alerts)}", *(f"  {alert_line(a)}" for a in alerts)]
