"""Job names shared by the definitions, the schedules and the CLI."""

INGEST_JOB = "ingest"  # every raw (daily-partitioned) asset
MARTS_JOB = "marts"  # every mart, its checks, budgets and alerts
