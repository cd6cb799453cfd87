"""Billing export rows straight from the BigQuery export table, through the same normalisation
as extract files: the same export row gives the same `billing_line_items` row either way.

Google's detailed export table is partitioned by ingestion day (`_PARTITIONTIME`), and rows
are appended, never rewritten: a late credit lands in a later partition with a later
`export_time`. So a read is bounded twice: by partition (from `since_day` on, never a full
scan) and by `export_time` (from the latest one already taken). Rows at exactly that instant
are read again and are recognised as seen by their row id, so none is taken twice.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta

import pyarrow as pa

from collectors.bigquery.client import Client, Param, dry_run_bytes, query_batches
from collectors.files import raw_text
from collectors.gcp_billing.normalise import BadRow, normalise
from collectors.gcp_billing.read import SOURCE, BillingRead
from collectors.gcp_billing.schema import BILLING_SCHEMA
from collectors.limits import DEFAULT_LIMITS, Limits
from collectors.money import BadNumber
from collectors.quarantine import Quarantined
from collectors.timeparse import BadTimestamp

SOURCE_PREFIX = "bigquery:"
NEVER = datetime(1970, 1, 1)
DEFAULT_LOOKBACK_DAYS = 90  # the first read without history_start, as Dagster's partitions


def source_name(table: str) -> str:
    """The `source` of the rows read from one export table."""
    return f"{SOURCE_PREFIX}{table}"


@dataclass(frozen=True)
class ExportRead:
    """One bounded read of an export table: the SQL (table filled in) and its bounds."""

    table: str
    rows_sql: str
    days_sql: str
    since_day: date
    taken_through: datetime | None
    max_bytes_billed: int

    def params(self) -> list[Param]:
        return [
            Param("since_day", "DATE", self.since_day),
            Param("taken_through", "TIMESTAMP", self.taken_through or NEVER),
        ]


def since_day(
    taken_through: datetime | None, start: date | None, today: date, trailing_days: int
) -> date:
    """The first partition to read: the day of the latest export_time taken (`start`, else 90
    days back, before any read), less the trailing window: a row is in the partition of the
    day it was exported, so no row not yet taken is in an earlier one."""
    if taken_through is not None:
        first = taken_through.date()
    else:
        first = start or today - timedelta(days=DEFAULT_LOOKBACK_DAYS)
    return first - timedelta(days=trailing_days)


def export_days(client: Client, read: ExportRead) -> set[date]:
    """The usage days of the rows the read would take (one DATE column scanned)."""
    days: set[date] = set()
    for batch in query_batches(client, read.days_sql, read.params(), read.max_bytes_billed):
        days.update(d for d in batch.column("usage_day").to_pylist() if d is not None)
    return days


def scan_bytes(client: Client, read: ExportRead) -> dict[str, int]:
    """What each query of the read would scan, by BigQuery's dry run (nothing is billed)."""
    params, cap = read.params(), read.max_bytes_billed
    return {
        "billing_export_days": dry_run_bytes(client, read.days_sql, params, cap),
        "billing_export_rows": dry_run_bytes(client, read.rows_sql, params, cap),
    }


def iter_export_batches(
    client: Client,
    read: ExportRead,
    stats: BillingRead,
    days: Collection[date] | None = None,
    ingested_at: datetime | None = None,
    batch_rows: int = 50_000,
    limits: Limits = DEFAULT_LIMITS,
) -> Iterator[pa.Table]:
    """Batches of `billing_line_items` rows from the export table (usage days in `days`, all
    when None); counts and quarantined rows go to `stats`, as for extract files."""
    ingested_at = ingested_at or NEVER
    source = source_name(read.table)
    rows: list[dict] = []
    number = 0
    for batch in query_batches(client, read.rows_sql, read.params(), read.max_bytes_billed):
        for record in batch.to_pylist():
            number += 1
            stats.rows_read += 1
            row = _row(record, source, number, (ingested_at, limits), stats)
            if row is None:
                continue
            if days is not None and row["usage_day"] not in days:
                stats.rows_outside_window += 1
                continue
            stats.rows_in_window += 1
            rows.append(row)
            if len(rows) >= batch_rows:
                yield pa.Table.from_pylist(rows, schema=BILLING_SCHEMA)
                rows = []
    if rows:
        yield pa.Table.from_pylist(rows, schema=BILLING_SCHEMA)


def _row(record: dict, source: str, number: int, at: tuple[datetime, Limits], stats: BillingRead):
    try:
        return normalise(record, source, number, *at)
    except (BadRow, BadNumber, BadTimestamp) as exc:
        raw = raw_text(record, "")
        # A table has no lines: the quarantine row is keyed by the table and the raw row.
        stats.quarantined.append(Quarantined(SOURCE, source, None, str(exc), raw))
        return None
