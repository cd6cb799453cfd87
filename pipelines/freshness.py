"""The freshness check the telemetry sources share: their newest minute keeps up with the bill."""

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
