"""Reports finance forwards: the month close (reports/month.py: sections, CSV files, the
revision manifest; reports/html.py: the self-contained page). Reads the warehouse only through
named queries (models/queries/month_report_*.sql); no Dagster, no CLI."""
