"""Checks on probe results: a wrong answer is a hardware ticket, never a speed."""

import dagster as dg

from pipelines.resources import Flopledger


@dg.asset_check(
    asset="probe_results",
    name="probe_results_verified",
    description="Every probe of the last 7 days (to the newest result) matched its reference.",
)
def probes_verified(flopledger: Flopledger) -> dg.AssetCheckResult:
    rows = (
        flopledger.warehouse()
        .query(
            """SELECT node, count(*) AS failed
           FROM probe_results
           WHERE NOT verified
             AND measured_at >= (SELECT max(measured_at) FROM probe_results) - INTERVAL 7 DAY
           GROUP BY node
           ORDER BY node"""
        )
        .to_pylist()
    )
    return dg.AssetCheckResult(
        passed=not rows,
        severity=dg.AssetCheckSeverity.WARN,
        description="every probe verified"
        if not rows
        else "failed probes on " + ", ".join(f"{r['node']} ({r['failed']})" for r in rows[:20]),
        metadata={"nodes_with_failures": dg.MetadataValue.int(len(rows))},
    )


def build_checks() -> list[dg.AssetChecksDefinition]:
    return [probes_verified]
