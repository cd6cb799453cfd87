"""The two asset jobs: names shared by the definitions, the schedules and the CLI."""

import dagster as dg

INGEST_JOB = "ingest"  # every raw (daily-partitioned) asset
MARTS_JOB = "marts"  # every mart, its checks, budgets and alerts


def asset_jobs() -> list:
    return [
        dg.define_asset_job(INGEST_JOB, selection=dg.AssetSelection.groups("raw")),
        dg.define_asset_job(MARTS_JOB, selection=dg.AssetSelection.groups("marts")),
    ]
