"""Publish the snapshot readers use: an asset downstream of every mart, budget and alert.

The books' ERROR checks are blocking (declared in their models' headers, built by pipelines/checks.py): when one fails, this asset
does not run and readers keep the last good snapshot. Scheduled runs and `flopledger run`
publish the same way. A DuckDB publish writes what changed since the file it swaps in was last
published (warehouse/duckdb_snapshot.py); its metadata says what that was."""

import dagster as dg

from flopledger.pipelines.resources import Flopledger

SNAPSHOT_ASSET = "warehouse_snapshot"
# Written by the marts job besides the SQL marts (alerts/ and marts/assets.py).
OTHER_MARTS = (
    "flopledger_settings",
    "settings_history",
    "accelerator_specs",
    "commitment_plan",
    "budgets",
    "budget_status",
    "alerts",
    "closed_month_changes",
)


def build_snapshot_asset(marts: list[str]) -> dg.AssetsDefinition:
    @dg.asset(
        name=SNAPSHOT_ASSET,
        group_name="marts",
        deps=[*marts, *OTHER_MARTS],
        kinds={"duckdb"},
        description="The consistent read-only copy the dashboards and `flopledger sql` read.",
    )
    def warehouse_snapshot(flopledger: Flopledger) -> dg.MaterializeResult:
        published = flopledger.warehouse().publish_snapshot()
        return dg.MaterializeResult(
            metadata={
                "path": dg.MetadataValue.path(published.path),
                # what the publish wrote: the changes (tables and days) or a whole copy, and why
                "publish": dg.MetadataValue.text(published.summary()),
            }
        )

    return warehouse_snapshot
