"""What the billing source knows of the export table without its client: whether the config
names one, and how far the bill has landed. A module of its own so that a run reading extracts
alone never loads the BigQuery client (ingest/gcp_billing/export.py)."""

from __future__ import annotations

from datetime import datetime

from flopledger.collectors.timeparse import naive_utc
from flopledger.models import query_sql
from flopledger.settings import BigQueryExportConfig, Config
from flopledger.warehouse import Warehouse


def export_config(config: Config) -> BigQueryExportConfig | None:
    """The export table `sources.gcp_billing.bigquery` names (None: the extracts alone)."""
    billing = config.sources.gcp_billing
    return billing.bigquery if billing is not None else None


def taken_through(warehouse: Warehouse) -> dict[str, datetime]:
    """The latest export_time taken from each export table (by `source`) and from the extract
    files (`files`): where a table's next read starts, and what each run reports."""
    rows = warehouse.query(query_sql("billing_export_watermarks")).to_pylist()
    # naive UTC, as every bound here: a BigQuery warehouse's TIMESTAMP comes back with its zone
    return {
        r["source"]: naive_utc(r["taken_through"]) for r in rows if r["taken_through"] is not None
    }
