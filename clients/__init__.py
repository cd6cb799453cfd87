"""Doors to outside services that more than one room uses: `clients/bigquery.py` (the billing
source in collectors/ reads the export through it; the BigQuery warehouse in warehouse/ runs
its jobs through it). A client here imports no room of flopledger."""
