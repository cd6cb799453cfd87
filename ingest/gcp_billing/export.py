"""The billing export table as this run reads it: its client, its SQL and its bounds, from
`sources.gcp_billing.bigquery` and what the warehouse has already taken."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import date, datetime

import pyarrow as pa

from flopledger.clients.bigquery import Client, make_client
from flopledger.collectors.gcp_billing.bigquery import (
    NEVER,
    ExportRead,
    export_days,
    export_from,
    iter_export_batches,
    scan_bytes,
    since_day,
    source_name,
)
from flopledger.collectors.gcp_billing.read import BillingRead
from flopledger.collectors.limits import Limits
from flopledger.ingest.gcp_billing.in_place import (
    InPlaceCounts,
    in_place_export,
    read_in_place,
    schema_is_known,
)
from flopledger.ingest.gcp_billing.landed import export_config, taken_through
from flopledger.models import bigquery_sql
from flopledger.settings import BigQueryExportConfig, Config
from flopledger.warehouse import Warehouse


def export_client(export: BigQueryExportConfig) -> Client:
    """Application-default credentials (or an emulator at `endpoint`); jobs run in the
    configured project, else the table's."""
    return make_client(export.job_project, export.endpoint, None, export.location)


def export_read(
    config: Config,
    export: BigQueryExportConfig,
    taken: dict[str, datetime],
    today: date,
    backfill_from: date | None = None,
) -> ExportRead:
    """The bounded read of the table: from the latest export_time taken less the trailing
    window (that day's partition on). An explicit backfill from `backfill_from` rereads that
    day's partitions on, but no row past the watermark: it keeps to its days, so a row after
    the watermark is left for the next plain run (else the watermark would pass rows of other
    days never taken). Before any plain run has taken a row, a backfill takes none."""
    mark = taken.get(source_name(export.table))
    if backfill_from is not None:
        return ExportRead(
            table=export.table,
            rows_sql=bigquery_sql("billing_export_rows", export.table),
            days_sql=bigquery_sql("billing_export_days", export.table),
            since_day=since_day(None, backfill_from, today, export.trailing_days),
            taken_through=mark,
            max_bytes_billed=export.max_bytes_billed,
            export_until=mark or NEVER,
        )
    return ExportRead(
        table=export.table,
        rows_sql=bigquery_sql("billing_export_rows", export.table),
        days_sql=bigquery_sql("billing_export_days", export.table),
        since_day=since_day(mark, config.history_start, today, export.trailing_days),
        taken_through=mark,
        max_bytes_billed=export.max_bytes_billed,
        export_from=export_from(mark, export.trailing_days),
    )


def export_batches(
    config: Config,
    warehouse: Warehouse,
    stats: BillingRead,
    now: datetime,
    days: set[date] | None,
    limits: Limits,
    in_place: InPlaceCounts | None = None,
    log: Callable[[str], None] = lambda _: None,
) -> Iterator[pa.Table]:
    """The export table's new rows as `billing_line_items` batches (none without the block).
    `days` (an explicit backfill's) rereads the partitions from its first day whole. With
    `in_place` and a warehouse that reads the table in place (BigQuery beside it), the rows SQL
    can prove plain are taken by the warehouse itself (counted there) and only the others come
    back as batches (ingest/gcp_billing/in_place.py)."""
    export = export_config(config)
    if export is None:
        return
    backfill_from = min(days) if days else None
    read = export_read(config, export, taken_through(warehouse), now.date(), backfill_from)
    if in_place is not None and (engine := in_place_export(config, warehouse)) is not None:
        if schema_is_known(engine, export.table):
            yield from read_in_place(engine, export, read, stats, days, now, limits, in_place, log)
            return
        log(
            f"gcp_billing: {export.table} has not the export schema the in-place model reads: read out"
        )
    yield from iter_export_batches(
        export_client(export), read, stats, days, ingested_at=now, limits=limits
    )


def take_export(
    config: Config,
    warehouse: Warehouse,
    stats: BillingRead,
    now: datetime,
    days: set[date] | None,
    limits: Limits,
    log: Callable[[str], None] = lambda _: None,
) -> tuple[int, int]:
    """Insert the export table's new rows into billing_line_items (in place where the warehouse
    is beside it); (rows new, rows already taken). Rows read again from the trailing window
    are already taken, not duplicates; quarantined rows are in `stats` for the caller."""
    new = reread = 0
    in_place = InPlaceCounts()
    for batch in export_batches(config, warehouse, stats, now, days, limits, in_place, log):
        # the row id hashes the usage day: only those days' ids are compared
        inserted = warehouse.insert_new("billing_line_items", batch, "row_id", day="usage_day")
        new += inserted
        reread += batch.num_rows - inserted
    return new + in_place.loaded, reread + in_place.reread


def export_input_days(config: Config, warehouse: Warehouse, today: date) -> set[date]:
    """The usage days of the rows the next run would take from the export table (one small
    query, partition-bounded), so that a config with only the table has days to run."""
    export = export_config(config)
    if export is None:
        return set()
    read = export_read(config, export, taken_through(warehouse), today)
    return export_days(export_client(export), read)


def dry_run_scans(
    config: Config, warehouse: Warehouse, first_day: date | None, today: date
) -> tuple[ExportRead, dict[str, int]] | None:
    """What each query of the next read would scan, by BigQuery's dry run (nothing billed);
    None without the block. A warehouse not created yet has taken nothing."""
    export = export_config(config)
    if export is None:
        return None
    taken = taken_through(warehouse) if warehouse.exists() else {}
    read = export_read(config, export, taken, today, backfill_from=first_day)
    return read, scan_bytes(export_client(export), read)
