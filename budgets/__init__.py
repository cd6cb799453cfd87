"""Budgets and alerts: the budget file, period arithmetic, forecasts, alert rules and delivery.

Pure logic lives here (no Dagster); `pipelines/alerts/` wires it into assets,
checks, schedules and sensors. See docs/budgets.md.
"""
