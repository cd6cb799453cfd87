"""Reports finance forwards: the month close (reports/month.py: sections, CSV files, the
revision manifest; reports/html.py: the self-contained page). Reads the warehouse only through
named queries (models/queries/: the figures' own, which the pages and the CLI run too, and
month_report_*.sql for what only the report shows); no Dagster, no CLI."""
