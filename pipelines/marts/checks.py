"""Asset checks on the marts: the books close, shares are sane, and what is odd is counted.

The ERROR checks are blocking: when one fails, nothing downstream of its mart runs, so the
snapshot readers see is never published from books in doubt.

Their queries are in models/queries, named for what they count."""

import dagster as dg

from flopledger.models import query_sql
from flopledger.pipelines.resources import Flopledger

ERROR, WARN = dg.AssetCheckSeverity.ERROR, dg.AssetCheckSeverity.WARN


def _count(flopledger: Flopledger, query: str) -> int:
    """The `n` of a models/queries file that counts offenders (`SELECT count(*) AS n ...`)."""
    return int(flopledger.warehouse().query(query_sql(query)).to_pylist()[0]["n"])


def _none_found(flopledger: Flopledger, query: str, what: str) -> dg.AssetCheckResult:
    """ERROR unless `query` (one that counts offenders) counts nothing; `what` names them."""
    n = _count(flopledger, query)
    return dg.AssetCheckResult(passed=n == 0, severity=ERROR, description=f"{n} {what}")


@dg.asset_check(
    blocking=True, asset="books", description="Every reconciliation difference is exactly zero."
)
def books_close(flopledger: Flopledger) -> dg.AssetCheckResult:
    rows = flopledger.warehouse().query(query_sql("books_differences")).to_pylist()
    off = {r["check_name"]: str(r["difference"]) for r in rows if r["difference"] != 0}
    return dg.AssetCheckResult(
        passed=not off,
        severity=ERROR,
        description="the books close" if not off else f"out by: {off}",
        metadata={r["check_name"]: dg.MetadataValue.text(str(r["difference"])) for r in rows},
    )


@dg.asset_check(
    blocking=True,
    asset="idle_capacity",
    description="allocated + unallocated idle = cost, every resource-hour.",
)
def resource_hours_close(flopledger: Flopledger) -> dg.AssetCheckResult:
    return _none_found(
        flopledger,
        "unclosed_resource_hours_count",
        "resource-hours do not close",
    )


@dg.asset_check(
    blocking=True,
    asset="run_allocation",
    description="No negative share, no allocation above cost.",
)
def shares_are_sane(flopledger: Flopledger) -> dg.AssetCheckResult:
    n = _count(flopledger, "shares_out_of_range_count")
    over = _count(flopledger, "over_allocated_resource_hours_count")
    return dg.AssetCheckResult(
        passed=n == 0 and over == 0,
        severity=ERROR,
        description=f"{n} shares outside [0, 1]; {over} resource-hours allocated above their cost",
    )


@dg.asset_check(
    blocking=True,
    asset="cost_per_run",
    description="No run is allocated more accelerator-hours than it held.",
)
def runs_within_what_they_held(flopledger: Flopledger) -> dg.AssetCheckResult:
    return _none_found(
        flopledger,
        "runs_above_held_count",
        "runs above what they held",
    )


@dg.asset_check(
    blocking=True,
    asset="idle_capacity",
    description="One row per resource-hour: nothing counted twice.",
)
def resource_hours_unique(flopledger: Flopledger) -> dg.AssetCheckResult:
    return _none_found(
        flopledger,
        "repeated_resource_hours_count",
        "resource-hours repeated",
    )


@dg.asset_check(
    blocking=True, asset="run_held_hours", description="No run holds more than its placements say."
)
def held_within_placements(flopledger: Flopledger) -> dg.AssetCheckResult:
    return _none_found(
        flopledger,
        "runs_above_placements_count",
        "runs hold more than their placements",
    )


@dg.asset_check(
    blocking=True,
    asset="team_chargeback",
    description="Chargeback sums to the bill: sum(total_cost) = sum(spend_daily.effective_cost).",
)
def chargeback_sums_to_the_bill(flopledger: Flopledger) -> dg.AssetCheckResult:
    row = flopledger.warehouse().query(query_sql("chargeback_difference")).to_pylist()[0]
    return dg.AssetCheckResult(
        passed=row["difference"] == 0,
        severity=ERROR,
        description=f"charged {row['charged']} against effective {row['effective']}",
        metadata={"difference": dg.MetadataValue.text(str(row["difference"]))},
    )


@dg.asset_check(
    asset="allocation_issues",
    description="Unknown run labels, clipped claims, ambiguous placements and committed-use "
    "credits no commitment fee matched (reported).",
)
def allocation_issues_counted(flopledger: Flopledger) -> dg.AssetCheckResult:
    rows = flopledger.warehouse().query(query_sql("allocation_issue_counts")).to_pylist()
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
    rows = flopledger.warehouse().query(query_sql("quarantine_counts")).to_pylist()
    counts = {r["source"]: int(r["n"]) for r in rows}
    return dg.AssetCheckResult(
        passed=not counts,
        severity=WARN,
        description=", ".join(f"{n} from {s}" for s, n in counts.items()) or "none",
        metadata={k: dg.MetadataValue.int(v) for k, v in counts.items()},
    )


@dg.asset_check(
    blocking=True,
    asset="pod_gpu_hourly",
    description="Per node-hour, the pods' and the no-pod row's GPU seconds are the telemetry's.",
)
def pod_hours_close(flopledger: Flopledger) -> dg.AssetCheckResult:
    return _none_found(flopledger, "pod_hours_unclosed_count", "node-hours do not close per pod")


@dg.asset_check(
    asset="commitment_demand_hourly",
    description="Paid and queued demand add up to resource_hour_pool's paid accelerator-seconds "
    "and the jobs' queue time x accelerators, per accelerator type, exactly.",
)
def commitment_demand_reconciles(flopledger: Flopledger) -> dg.AssetCheckResult:
    n = _count(flopledger, "commitment_demand_unreconciled_count")
    return dg.AssetCheckResult(
        passed=n == 0, severity=WARN, description=f"{n} accelerator types do not add up"
    )


@dg.asset_check(
    blocking=True,
    asset="accelerator_portfolio",
    description="The portfolio's self-hosted cost per family and class sums to the runs' cost "
    "(cost_per_run), exactly.",
)
def portfolio_sums_to_the_runs(flopledger: Flopledger) -> dg.AssetCheckResult:
    row = flopledger.warehouse().query(query_sql("portfolio_cost_difference")).to_pylist()[0]
    return dg.AssetCheckResult(
        passed=row["difference"] == 0,
        severity=ERROR,
        description=f"portfolio {row['portfolio']} against runs {row['runs']}",
        metadata={"difference": dg.MetadataValue.text(str(row["difference"]))},
    )


CHECKS = [
    books_close,
    resource_hours_close,
    shares_are_sane,
    runs_within_what_they_held,
    resource_hours_unique,
    held_within_placements,
    chargeback_sums_to_the_bill,
    allocation_issues_counted,
    quarantine_is_empty,
    pod_hours_close,
    commitment_demand_reconciles,
    portfolio_sums_to_the_runs,
]
