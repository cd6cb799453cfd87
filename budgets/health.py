"""Health rules on the raw telemetry: GPU XID/ECC errors, probe ceiling drops, stale sources.

Each looks back from the latest row its table holds, so it fires once that source has data
(and never for a source that has not landed yet).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from budgets.alerts import Alert
from budgets.budget_file import HealthRules
from warehouse import Warehouse

GPU_ERRORS = """
SELECT CAST(minute AS DATE) AS day, node, coalesce(gpu_uuid, 'gpu' || gpu_index) AS gpu,
       coalesce(sum(xid_errors), 0) AS xid, coalesce(sum(ecc_errors), 0) AS ecc
FROM gpu_samples
WHERE minute >= (SELECT max(minute) FROM gpu_samples) - to_days(CAST(? AS INTEGER))
GROUP BY ALL
HAVING coalesce(sum(xid_errors), 0) > 0 OR coalesce(sum(ecc_errors), 0) > 0
ORDER BY day, node, gpu
"""

PROBE_DROP = """
WITH daily AS (
    SELECT node, device_index, dtype, CAST(measured_at AS DATE) AS day, max(achieved_tflops) AS best
    FROM probe_results WHERE verified AND achieved_tflops IS NOT NULL
    GROUP BY ALL
),
latest AS (
    SELECT *, max(day) OVER (PARTITION BY node, device_index, dtype) AS last_day FROM daily
)
SELECT node, device_index, dtype, last_day AS day,
       max(best) FILTER (WHERE day = last_day) AS now_tflops,
       max(best) FILTER (WHERE day < last_day) AS before_tflops
FROM latest
WHERE last_day >= (SELECT max(day) FROM daily) - to_days(CAST(? AS INTEGER))
GROUP BY ALL
HAVING max(best) FILTER (WHERE day < last_day) IS NOT NULL
ORDER BY node, device_index, dtype
"""

# Source name in flopledger.yaml -> (table, its time column).
SOURCE_TIMES = {
    "gcp_billing": ("billing_line_items", "usage_end"),
    "jobs": ("jobs", "submitted_at"),
    "nvml_spool": ("gpu_samples", "minute"),
    "cloud_monitoring": ("tpu_samples", "minute"),
    "probes": ("probe_results", "measured_at"),
}


def gpu_error_alerts(warehouse: Warehouse, rules: HealthRules) -> list[Alert]:
    if not rules.gpu_errors:
        return []
    alerts = []
    for r in warehouse.query(GPU_ERRORS, [rules.lookback_days]).to_pylist():
        for kind, count in (("xid", r["xid"]), ("ecc", r["ecc"])):
            if count > 0:
                alerts.append(Alert(
                    alert_id=f"health:{kind}:{r['node']}:{r['gpu']}:{r['day']}",
                    kind="health", subject=f"{kind}_errors", severity="critical",
                    title=f"{count} {kind.upper()} error(s) on {r['node']} {r['gpu']} on {r['day']}",
                    message=f"gpu_samples.{kind}_errors summed to {count} on {r['day']} (node {r['node']})",
                    channels=list(rules.channels), details={**r, "count": count},
                ))
    return alerts


def probe_drop_alerts(warehouse: Warehouse, rules: HealthRules) -> list[Alert]:
    if rules.probe_drop_pct is None:
        return []
    alerts = []
    for r in warehouse.query(PROBE_DROP, [rules.lookback_days]).to_pylist():
        drop = (1 - r["now_tflops"] / r["before_tflops"]) * 100
        if drop > rules.probe_drop_pct:
            subject = f"{r['node']}:{r['device_index']}:{r['dtype']}"
            alerts.append(Alert(
                alert_id=f"health:probe_drop:{subject}:{r['day']}",
                kind="health", subject="probe_drop", severity="warning",
                title=f"Measured {r['dtype']} ceiling of {r['node']} device {r['device_index']} fell {drop:.0f}%",
                message=f"{r['now_tflops']:.1f} TFLOP/s on {r['day']} against a best of {r['before_tflops']:.1f} before",
                channels=list(rules.channels), details={**r, "drop_pct": drop},
            ))
    return alerts


def stale_alerts(warehouse: Warehouse, rules: HealthRules, now: datetime) -> list[Alert]:
    alerts = []
    for source, hours in sorted(rules.stale_after_hours.items()):
        table, column = SOURCE_TIMES[source]
        latest = warehouse.query(f"SELECT max({column}) AS t FROM {table}").to_pylist()[0]["t"]
        if latest is None or now - latest <= timedelta(hours=hours):
            continue
        age = (now - latest).total_seconds() / 3600
        alerts.append(Alert(
            alert_id=f"health:stale:{source}:{now.date()}",
            kind="health", subject="stale_source", severity="warning",
            title=f"Source {source} is stale: nothing new for {age:.0f} h",
            message=f"latest {table}.{column} is {latest:%Y-%m-%d %H:%M} UTC (limit {hours:g} h)",
            channels=list(rules.channels), details={"source": source, "latest": latest, "age_hours": age},
        ))
    return alerts


def health_alerts(warehouse: Warehouse, rules: HealthRules, now: datetime) -> list[Alert]:
    return [*gpu_error_alerts(warehouse, rules), *probe_drop_alerts(warehouse, rules), *stale_alerts(warehouse, rules, now)]
