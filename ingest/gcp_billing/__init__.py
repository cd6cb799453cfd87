"""The GCP billing export (NDJSON and Parquet extracts, or the BigQuery export table) into
`billing_line_items`: `source.py` (the `Source`), `export.py` (the export table's bounded read)
and `in_place.py` (that read done inside a BigQuery warehouse beside the table)."""
