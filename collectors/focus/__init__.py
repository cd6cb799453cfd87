"""FOCUS (the FinOps Open Cost and Usage Specification) cost and usage datasets, any provider.

`read.py` reads CSV and Parquet files of FOCUS 1.0, 1.1 and 1.2 into an Arrow table in step
with models/raw/focus_line_items.sql, and quarantine rows for what it cannot read. Money keeps
every decimal the files carry (DECIMAL(38, 12)); `ProviderName` is kept as written.
"""
