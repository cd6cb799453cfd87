"""Health rules on the raw telemetry: GPU XID/ECC errors, probe ceiling drops, stale sources.

Each looks back from the latest row its table holds, so it fires once that source has data
(and never for a source that has not landed yet). The queries are in models/queries
(gpu_errors_by_day, probe_ceiling_drops, latest_time_by_source).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from flopledger.budgets.alerts import Alert
from flopledger.budgets.budget_file import HealthRules
from flopledger.models import query_sql
from flopledger.warehouse import Warehouse


def _lookback(rules: HealthRules) -> dict[str, int]:
    return {"lookback_days": rules.lookback_days}


def gpu_error_alerts(warehouse: Warehouse, rules: HealthRules) -> list[Alert]:
    if not rules.gpu_errors:
        return []
    alerts = []
    for r in warehouse.query(query_sql("gpu_errors_by_day"), _lookback(rules)).to_pylist():
        for kind, count in (("xid", r["xid"]), ("ecc", r["ecc"])):
            if count > 0:
                alerts.append(
                    Alert(
                        alert_id=f"health:{kind}:{r['node']}:{r['gpu']}:{r['day']}",
                        kind="health",
                        subject=f"{kind}_errors",
                        severity="critical",
                        title=f"{count} {kind.upper()} error(s) on {r['node']} {r['gpu']} on {r['day']}",
                        message=f"gpu_samples.{kind}_errors summed to {count} on {r['day']} (node {r['node']})",
                        channels=list(rules.channels),
                        details={**r, "count": count},
                    )
                )
    return alerts


def probe_drop_alerts(warehouse: Warehouse, rules: HealthRules) -> list[Alert]:
    if rules.probe_drop_pct is None:
        return []
    alerts = []
    for r in warehouse.query(query_sql("probe_ceiling_drops"), _lookback(rules)).to_pylist():
        drop = (1 - r["now_tflops"] / r["before_tflops"]) * 100
        if drop > rules.probe_drop_pct:
            subject = f"{r['node']}:{r['device_index']}:{r['dtype']}"
            alerts.append(
                Alert(
                    alert_id=f"health:probe_drop:{subject}:{r['day']}",
                    kind="health",
                    subject="probe_drop",
                    severity="warning",
                    title=f"Measured {r['dtype']} ceiling of {r['node']} device {r['device_index']} fell {drop:.0f}%",
                    message=f"{r['now_tflops']:.1f} TFLOP/s on {r['day']} against a best of {r['before_tflops']:.1f} before",
                    channels=list(rules.channels),
                    details={**r, "drop_pct": drop},
                )
            )
    return alerts


def latest_times(warehouse: Warehouse) -> dict[str, dict[str, Any]]:
    """Source name in flopledger.yaml -> its table, that table's time column and latest time."""
    return {r["source"]: r for r in warehouse.query(query_sql("latest_time_by_source")).to_pylist()}


def stale_alerts(warehouse: Warehouse, rules: HealthRules, now: datetime) -> list[Alert]:
    if not rules.stale_after_hours:
        return []
    times = latest_times(warehouse)
    alerts = []
    for source, hours in sorted(rules.stale_after_hours.items()):
        table, column, latest = (times[source][k] for k in ("table_name", "time_column", "latest"))
        if latest is None or now - latest <= timedelta(hours=hours):
            continue
        age = (now - latest).total_seconds() / 3600
        alerts.append(
            Alert(
                alert_id=f"health:stale:{source}:{now.date()}",
                kind="health",
                subject="stale_source",
                severity="warning",
                title=f"Source {source} is stale: nothing new for {age:.0f} h",
                message=f"latest {table}.{column} is {latest:%Y-%m-%d %H:%M} UTC (limit {hours:g} h)",
                channels=list(rules.channels),
                details={"source": source, "latest": latest, "age_hours": age},
            )
        )
    return alerts


def health_alerts(warehouse: Warehouse, rules: HealthRules, now: datetime) -> list[Alert]:
    return [
        *gpu_error_alerts(warehouse, rules),
        *probe_drop_alerts(warehouse, rules),
        *stale_alerts(warehouse, rules, now),
    ]
