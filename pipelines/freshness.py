"""The freshness check the telemetry sources share: their newest minute keeps up with the bill."""

from datetime import timedelta

import dagster as dg

from pipelines.resources import Flopledger


def freshness_check(
    asset: str, table: str, source: str, lag_hours: int = 2
) -> dg.AssetChecksDefinition:
    """WARN when the table's newest minute trails the bill's newest hour by more than `lag_hours`.

    Measured against the bill, not the wall clock, so that a backfill of old data is judged
    on its own terms; a live deployment that stops receiving telemetry shows up the same way."""

    @dg.asset_check(asset=asset, name=f"{table}_fresh", description=f"{table} keeps up with the bill.")
    def check(flopledger: Flopledger) -> dg.AssetCheckResult:
        if getattr(flopledger.config().sources, source) is None:
            return dg.AssetCheckResult(passed=True, description=f"sources.{source} is not configured")
        row = flopledger.warehouse().query(
            f"""SELECT (SELECT max(minute) FROM {table}) AS newest,
                       (SELECT max(usage_end) FROM billing_line_items) AS billed_until"""
        ).to_pylist()[0]
        newest, billed = row["newest"], row["billed_until"]
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
