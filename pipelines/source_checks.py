"""The checks on the sources' tables, in one place: the telemetry keeps up with the bill, FOCUS
rows follow the specification, probes verified, managed requests priced and prices agreeing.

All WARN: each says what to fix at the source (quarantine counts are checked on `books`)."""

from datetime import datetime, timedelta

import dagster as dg

from flopledger.models import query_sql
from flopledger.pipelines.resources import Flopledger


def _newest_and_billed(
    flopledger: Flopledger, table: str
) -> tuple[datetime | None, datetime | None]:
    """The latest time in `table` (its minute) and the end of the latest billed usage window."""
    rows = flopledger.warehouse().query(query_sql("latest_time_by_source")).to_pylist()
    latest = {r["table_name"]: r["latest"] for r in rows}
    return latest[table], latest["billing_line_items"]


def freshness_check(
    asset: str, table: str, source: str, lag_hours: int = 2
) -> dg.AssetChecksDefinition:
    """WARN when the table's newest minute trails the bill's newest hour by more than `lag_hours`.

    Measured against the bill, not the wall clock, so that a backfill of old data is judged
    on its own terms; a live deployment that stops receiving telemetry shows up the same way."""

    @dg.asset_check(
        asset=asset, name=f"{table}_fresh", description=f"{table} keeps up with the bill."
    )
    def check(flopledger: Flopledger) -> dg.AssetCheckResult:
        if getattr(flopledger.config().sources, source) is None:
            return dg.AssetCheckResult(
                passed=True, description=f"sources.{source} is not configured"
            )
        newest, billed = _newest_and_billed(flopledger, table)
        if newest is None:
            return dg.AssetCheckResult(
                passed=False, severity=dg.AssetCheckSeverity.WARN, description=f"{table} is empty"
            )
        lag = (billed - newest) if billed else timedelta(0)
        stale = lag > timedelta(hours=lag_hours)
        return dg.AssetCheckResult(
            passed=not stale,
            severity=dg.AssetCheckSeverity.WARN,
            description=f"newest minute {newest}, bill until {billed}",
            metadata={"newest_minute": dg.MetadataValue.text(str(newest))},
        )

    return check


def _count(flopledger: Flopledger, query: str) -> int:
    return int(flopledger.warehouse().query(query_sql(query)).to_pylist()[0]["n"])


# A FOCUS row that breaks the specification is read where its meaning is clear (a value in the
# wrong case, a mandatory cost left null); its reason is in `spec_issues`, for the provider's
# export to be fixed.
@dg.asset_check(
    asset="focus_line_items",
    name="focus_rows_follow_spec",
    description="Every FOCUS row loaded follows the specification (else spec_issues says why).",
)
def focus_rows_follow_spec(flopledger: Flopledger) -> dg.AssetCheckResult:
    n = _count(flopledger, "focus_flagged_count")
    return dg.AssetCheckResult(
        passed=n == 0,
        severity=dg.AssetCheckSeverity.WARN,
        description=f"{n} FOCUS row(s) break the specification: see focus_line_items.spec_issues",
        metadata={"flagged": dg.MetadataValue.int(n)},
    )


# A wrong answer is a hardware ticket, never a speed.
@dg.asset_check(
    asset="probe_results",
    name="probe_results_verified",
    description="Every probe of the last 7 days (to the newest result) matched its reference.",
)
def probe_results_verified(flopledger: Flopledger) -> dg.AssetCheckResult:
    rows = flopledger.warehouse().query(query_sql("failed_probes_by_node")).to_pylist()
    return dg.AssetCheckResult(
        passed=not rows,
        severity=dg.AssetCheckSeverity.WARN,
        description="every probe verified"
        if not rows
        else "failed probes on " + ", ".join(f"{r['node']} ({r['failed']})" for r in rows[:20]),
        metadata={"nodes_with_failures": dg.MetadataValue.int(len(rows))},
    )


# An unpriced request means a price is missing from the book (its cost is not counted).
@dg.asset_check(
    asset="cost_per_request",
    name="managed_requests_priced",
    description="Every managed request has a cost (from the gateway or the price book).",
)
def managed_requests_priced(flopledger: Flopledger) -> dg.AssetCheckResult:
    n = _count(flopledger, "managed_unpriced_requests_count")
    return dg.AssetCheckResult(
        passed=n == 0,
        severity=dg.AssetCheckSeverity.WARN,
        description=f"{n} request(s) without a price: add their provider and model to the price book",
        metadata={"unpriced": dg.MetadataValue.int(n)},
    )


# A disagreement means the gateway's price table or the book is out of date.
@dg.asset_check(
    asset="cost_per_request",
    name="managed_prices_agree",
    description="Where the gateway and the price book both priced a request, they agree (1%).",
)
def managed_prices_agree(flopledger: Flopledger) -> dg.AssetCheckResult:
    n = _count(flopledger, "managed_price_mismatch_count")
    return dg.AssetCheckResult(
        passed=n == 0,
        severity=dg.AssetCheckSeverity.WARN,
        description=f"{n} request(s) priced differently by the gateway and the price book",
        metadata={"mismatches": dg.MetadataValue.int(n)},
    )


def build_checks() -> list[dg.AssetChecksDefinition]:
    return [
        freshness_check("gpu_samples", "gpu_samples", "nvml_spool"),
        freshness_check("tpu_samples", "tpu_samples", "cloud_monitoring"),
        focus_rows_follow_spec,
        probe_results_verified,
        managed_requests_priced,
        managed_prices_agree,
    ]
