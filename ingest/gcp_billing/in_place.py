"""The billing export read in place: with `warehouse.kind: bigquery` and the export table on the
same endpoint (and location), the warehouse offers to read it where it lies (its `InPlace`,
warehouse/base.py), and the export's rows are normalised there by one SQL model
(sql/billing_export_normalised.sql beside this file, written from the export's schema by
in_place_sql.py, transpiled for BigQuery), the new ones inserted into `billing_line_items` by
the warehouse's engine: no row the SQL can prove plain passes through Python. Each run:

1. the (service, SKU) descriptions of the rows in the read's bounds (two columns, tiny) are
   classified in Python (the one copy of the rules, collectors/skus.py) and loaded beside the
   warehouse with the units' seconds, as scratch tables;
2. the model's rows (every column of `billing_line_items`, `plain`, and the export row itself)
   are written to a scratch table by one CREATE TABLE ... AS over the export table, with the
   bounds of the read out (models/bigquery/billing_export_rows.sql: partitions from since_day,
   export_time from the watermark less the trailing window, up to export_until);
3. the plain rows not taken yet are counted and inserted (sql/billing_in_place_*);
4. the rows it could not prove plain (a non-ASCII or escaped string, a number it would have to
   round, a value past a limit, a row failing a check) are read out as they are and go through
   the per-row normaliser, which loads each or quarantines it with its reason, as before;
5. the scratch tables are dropped (each is made to expire a day on, clients/bigquery.py's
   SCRATCH_EXPIRY: BigQuery deletes any that a killed run leaves).

The warehouse ends up as the rows read out would have left it (tests/warehouse/
test_bigquery_warehouse_in_place.py), and the run's counts mean the same. An export table whose
schema is not the one the model was written for (a column Google added: EXPORT_FIELDS gains
it, and in_place_sql.py writes the model again) is read out as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

import pyarrow as pa

from flopledger.collectors.gcp_billing.bigquery import (
    ExportRead,
    iter_record_batches,
    source_name,
)
from flopledger.collectors.gcp_billing.columnar import limit_params, sku_lookups
from flopledger.collectors.gcp_billing.read import BillingRead
from flopledger.collectors.gcp_billing.schema import EXPORT_FIELDS, ExportField
from flopledger.collectors.limits import Limits
from flopledger.models import bigquery_sql
from flopledger.models.sql_files import SqlFolder
from flopledger.settings import BigQueryExportConfig, Config
from flopledger.warehouse import InPlace, Warehouse

# The in-place read's statements: the model, and the counts, insert and handoff over its rows.
SQL = SqlFolder(Path(__file__).parent / "sql", "ingest/gcp_billing/sql")
MODEL = "billing_export_normalised"
EVERY_DAY = (date(1, 1, 1), date(9999, 12, 31))


@dataclass
class InPlaceCounts:
    """What the warehouse took itself (the handed-over rows are counted as any read-out row)."""

    loaded: int = 0  # new plain rows inserted by the warehouse
    reread: int = 0  # plain rows of the run's days already taken (by row id)


def in_place_export(config: Config, warehouse: Warehouse) -> InPlace | None:
    """The warehouse as a reader of the export table where it lies, when it offers one for the
    table's endpoint and location (warehouse/base.py's `in_place`: a BigQuery warehouse on the
    same endpoint and, where both are named, location). None otherwise: the rows are read out."""
    billing = config.sources.gcp_billing
    export = billing.bigquery if billing is not None else None
    return None if export is None else warehouse.in_place(export.endpoint, export.location)


def _expected(fields: tuple[ExportField, ...]) -> tuple[tuple[str, str, str, tuple], ...]:
    return tuple((f.name, f.type, f.mode, _expected(f.fields)) for f in fields)


def schema_is_known(warehouse: InPlace, table: str) -> bool:
    """The export table has exactly the schema the model was written for (no field Google
    added since: such a field would be in the row id, and in extra_fields)."""
    return warehouse.table_fields(table) == _expected(EXPORT_FIELDS)


def read_in_place(
    warehouse: InPlace,
    export: BigQueryExportConfig,
    read: ExportRead,
    stats: BillingRead,
    days: set[date] | None,
    now: datetime,
    limits: Limits,
    counts: InPlaceCounts,
    log: Callable[[str], None] = lambda _: None,
) -> Iterator[pa.Table]:
    """Take the read's plain rows inside BigQuery (counted in `stats` and `counts`) and yield
    the others' `billing_line_items` batches, from the per-row normaliser."""
    params = {p.name: p.value for p in read.params()}
    skus_sql = bigquery_sql("billing_export_skus", export.table)
    found = warehouse.query_native(skus_sql, read.params(), read.max_bytes_billed)
    pairs = [
        (service, sku)
        for b in found
        for service, sku in zip(
            b["service_name"].to_pylist(), b["sku_description"].to_pylist(), strict=True
        )
    ]
    skus, units = sku_lookups(pairs)
    names = [warehouse.create_scratch(n) for n in ("billing_skus", "billing_units", MODEL)]
    skus_id, units_id, stage_id = names
    made: list[str] = []
    try:
        for table_id, data in ((skus_id, skus), (units_id, units)):
            made.append(table_id)
            warehouse.scratch_from_arrow(table_id, data)
        sources = {"billing_export": read.rows_sql, "skus": skus_id, "units": units_id}
        model_params = {
            # the bounds of money and usage as text: the model casts them to DECIMAL(38, 9)
            **{
                k: str(v) if isinstance(v, Decimal) else v
                for k, v in limit_params(now, limits).items()
            },
            "source": source_name(export.table),
            **params,
        }
        made.append(stage_id)
        log(f"gcp_billing: normalising {export.table}'s rows in place (from {read.since_day})")
        warehouse.scratch_from_query(
            stage_id, SQL.file(MODEL).text, sources, model_params, read.max_bytes_billed
        )
        first, last = (min(days), max(days)) if days else EVERY_DAY
        window = {"first_day": first, "last_day": last}
        stage = {MODEL: stage_id}
        found_rows = warehouse.query_reading(
            SQL.file("billing_in_place_counts").text, stage, window
        )
        row = found_rows.to_pylist()[0]
        warehouse.query_reading(SQL.file("billing_in_place_insert").text, stage, window)
        plain, in_window, new = row["rows_plain"], row["rows_plain_in_window"], row["rows_new"]
        stats.rows_read += plain  # the handed-over rows are counted as they are normalised
        stats.rows_in_window += in_window
        stats.rows_outside_window += plain - in_window
        counts.loaded += new
        counts.reread += in_window - new
        others = warehouse.query_reading(SQL.file("billing_in_place_handoff").text, stage)
        records = others.column("export_row").to_pylist()
        log(
            f"gcp_billing: {row['rows_read']} export rows read in place: {plain} written by "
            f"SQL ({new} new), {len(records)} handed to the per-row normaliser"
        )
    finally:
        for table_id in made:
            warehouse.drop_scratch(table_id)
    yield from iter_record_batches(records, export.table, stats, days, now, limits=limits)
