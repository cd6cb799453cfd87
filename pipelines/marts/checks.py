"""Asset checks on the marts: the books close, shares are sane, and what is odd is counted."""

import dagster as dg

from pipelines.resources import Flopledger

ERROR, WARN = dg.AssetCheckSeverity.ERROR, dg.AssetCheckSeverity.WARN


def _count(flopledger: Flopledger, sql: str) -> int:
    return int(flopledger.warehouse().query(sql).to_pylist()[0]["n"])


def _none_found(flopledger: Flopledger, sql: str, what: str) -> dg.AssetCheckResult:
    """ERROR unless `sql` (a `SELECT count(*) AS n ...`) counts nothing; `what` names the offenders."""
    n = _count(flopledger, sql)
    return dg.AssetCheckResult(passed=n == 0, severity=ERROR, description=f"{n} {what}")


@dg.asset_check(asset="books", description="Every reconciliation difference is exactly zero.")
def books_close(flopledger: Flopledger) -> dg.AssetCheckResult:
    rows = flopledger.warehouse().query("SELECT check_name, difference FROM books").to_pylist()
    off = {r["check_name"]: str(r["difference"]) for r in rows if r["difference"] != 0}
    return dg.AssetCheckResult(
        passed=not off,
        severity=ERROR,
        description="the books close" if not off else f"out by: {off}",
        metadata={r["check_name"]: dg.MetadataValue.text(str(r["difference"])) for r in rows},
    )


@dg.asset_check(asset="idle_capacity", description="allocated + unallocated idle = cost, every resource-hour.")
def resource_hours_close(flopledger: Flopledger) -> dg.AssetCheckResult:
    return _none_found(
        flopledger,
        "SELECT count(*) AS n FROM idle_capacity WHERE allocated_cost + unallocated_idle_cost <> effective_cost",
        "resource-hours do not close",
    )


@dg.asset_check(asset="run_allocation", description="No negative share, no allocation above cost.")
def shares_are_sane(flopledger: Flopledger) -> dg.AssetCheckResult:
    n = _count(
        flopledger,
        """SELECT count(*) AS n FROM run_allocation a JOIN resource_hour_pool p USING (project_id, resource_name, hour)
           WHERE a.share < 0 OR a.share > 1 OR (p.effective_nanos >= 0 AND a.allocated_nanos < 0)""",
    )
    over = _count(
        flopledger,
        """SELECT count(*) AS n FROM resource_hour_pool p
           JOIN (SELECT project_id, resource_name, hour, sum(allocated_nanos) AS a FROM run_allocation GROUP BY ALL) s
           USING (project_id, resource_name, hour) WHERE p.effective_nanos >= 0 AND s.a > p.effective_nanos""",
    )
    return dg.AssetCheckResult(
        passed=n == 0 and over == 0,
        severity=ERROR,
        description=f"{n} shares outside [0, 1]; {over} resource-hours allocated above their cost",
    )


@dg.asset_check(asset="cost_per_run", description="No run is allocated more accelerator-hours than it held.")
def runs_within_what_they_held(flopledger: Flopledger) -> dg.AssetCheckResult:
    return _none_found(
        flopledger,
        "SELECT count(*) AS n FROM cost_per_run WHERE allocated_accelerator_hours > accelerator_hours + 1e-9",
        "runs above what they held",
    )


@dg.asset_check(asset="idle_capacity", description="One row per resource-hour: nothing counted twice.")
def resource_hours_unique(flopledger: Flopledger) -> dg.AssetCheckResult:
    return _none_found(
        flopledger,
        """SELECT count(*) AS n FROM (
               SELECT project_id, resource_name, hour FROM idle_capacity GROUP BY ALL HAVING count(*) > 1)""",
        "resource-hours repeated",
    )


@dg.asset_check(asset="run_held_hours", description="No run holds more than its placements say.")
def held_within_placements(flopledger: Flopledger) -> dg.AssetCheckResult:
    return _none_found(
        flopledger,
        """WITH last_billed AS (SELECT max(usage_end) AS t FROM billing_line_items),
           nominal AS (
               SELECT run_id, sum(CAST(accelerators AS HUGEINT) * span_us(start_at,
                   coalesce(end_at, date_trunc('hour', (SELECT t FROM last_billed) - INTERVAL 1 MICROSECOND)
                            + INTERVAL 1 HOUR)) * 1000) AS nanos
               FROM job_placements WHERE start_at IS NOT NULL GROUP BY run_id),
           held AS (SELECT run_id, sum(held_accelerator_nanos) AS nanos FROM run_held_hours GROUP BY run_id)
           SELECT count(*) AS n FROM held JOIN nominal USING (run_id) WHERE held.nanos > nominal.nanos""",
        "runs hold more than their placements",
    )


@dg.asset_check(asset="allocation_issues", description="Unknown run labels and clipped claims (reported).")
def allocation_issues_counted(flopledger: Flopledger) -> dg.AssetCheckResult:
    rows = flopledger.warehouse().query(
        "SELECT kind, count(*) AS n FROM allocation_issues GROUP BY kind ORDER BY kind"
    ).to_pylist()
    counts = {r["kind"]: int(r["n"]) for r in rows}
    text = ", ".join(f"{n} {kind.replace('_', ' ')}" for kind, n in counts.items()) or "none"
    return dg.AssetCheckResult(
        passed=not counts,
        severity=WARN,
        description=text,
        metadata={k: dg.MetadataValue.int(v) for k, v in counts.items()},
    )


@dg.asset_check(asset="books", description="Quarantined input rows, per source (reported).")
def quarantine_is_empty(flopledger: Flopledger) -> dg.AssetCheckResult:
    rows = flopledger.warehouse().query(
        "SELECT source, count(*) AS n FROM quarantine GROUP BY source ORDER BY source"
    ).to_pylist()
    counts = {r["source"]: int(r["n"]) for r in rows}
    return dg.AssetCheckResult(
        passed=not counts,
        severity=WARN,
        description=", ".join(f"{n} from {s}" for s, n in counts.items()) or "none",
        metadata={k: dg.MetadataValue.int(v) for k, v in counts.items()},
    )


CHECKS = [
    books_close,
    resource_hours_close,
    shares_are_sane,
    runs_within_what_they_held,
    resource_hours_unique,
    held_within_placements,
    allocation_issues_counted,
    quarantine_is_empty,
]
