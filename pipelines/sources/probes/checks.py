"""Checks on probe results: a wrong answer is a hardware ticket, never a speed."""

import dagster as dg

from flopledger.models import query_sql
from flopledger.pipelines.resources import Flopledger


@dg.asset_check(
    asset="probe_results",
    name="probe_results_verified",
    description="Every probe of the last 7 days (to the newest result) matched its reference.",
)
def probes_verified(flopledger: Flopledger) -> dg.AssetCheckResult:
    rows = flopledger.warehouse().query(query_sql("failed_probes_by_node")).to_pylist()
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
