"""Billing export rows straight from the BigQuery export table, through the same normalisation
as extract files: the same export row gives the same `billing_line_items` row either way.

Google's detailed export table is partitioned by ingestion day (`_PARTITIONTIME`), and rows
are appended, never rewritten: a late credit lands in a later partition with a later
`export_time`. So a read is bounded twice: by partition (from `since_day` on, never a full
scan) and by `export_time`: from the latest one already taken less the trailing window, so
that a row appended late with an earlier export_time is still read. Rows read again are
recognised by their row id: none is taken twice, and the run reports them as already taken,
not as duplicates.

The watermark (the latest export_time taken) is the table's rows' max(export_time), so only a
read that takes every row up to it may move it. A backfill (`--from/--to`) keeps to its days,
so it reads no row past the watermark (`export_until`): the rows after it, of any day, are the
next plain run's, which takes them and materialises their days.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta

import pyarrow as pa

from flopledger.clients.bigquery import Client, Param, dry_run_bytes, query_batches
from flopledger.collectors.files import raw_text
from flopledger.collectors.gcp_billing.normalise import BadRow, normalise
from flopledger.collectors.gcp_billing.read import SOURCE, UNEXPECTED, BillingRead, window_batches
from flopledger.collectors.limits import DEFAULT_LIMITS, Limits
from flopledger.collectors.money import BadNumber
from flopledger.collectors.quarantine import Quarantined
from flopledger.collectors.timeparse import BadTimestamp

SOURCE_PREFIX = "bigquery:"
NEVER = datetime(1970, 1, 1)
FOREVER = datetime(9999, 12, 31)
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
    taken_through: datetime | None  # the watermark: the latest export_time taken (None: none)
    max_bytes_billed: int
    export_from: datetime = NEVER  # the first export_time read: the watermark less the window
    export_until: datetime = FOREVER  # the last export_time read: a backfill's is the watermark

    def params(self) -> list[Param]:
        return [
            Param("since_day", "DATE", self.since_day),
            Param("export_from", "TIMESTAMP", self.export_from),
            Param("export_until", "TIMESTAMP", self.export_until),
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


def export_from(taken_through: datetime | None, trailing_days: int) -> datetime:
    """The first export_time a plain read takes: the watermark less the trailing window (a row
    written late with an earlier export_time is read, and taken once by its row id)."""
    if taken_through is None:
        return NEVER
    return max(NEVER, taken_through - timedelta(days=trailing_days))


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
    batches = query_batches(client, read.rows_sql, read.params(), read.max_bytes_billed)
    records = (record for batch in batches for record in batch.to_pylist())
    return iter_record_batches(records, read.table, stats, days, ingested_at, batch_rows, limits)


def iter_record_batches(
    records: Iterable[dict],
    table: str,
    stats: BillingRead,
    days: Collection[date] | None = None,
    ingested_at: datetime | None = None,
    batch_rows: int = 50_000,
    limits: Limits = DEFAULT_LIMITS,
) -> Iterator[pa.Table]:
    """Export table rows (as the client returns them) through the per-row normaliser, as
    `billing_line_items` batches: the table's rows read out, or those an in-place read hands
    over (ingest/gcp_billing/in_place.py)."""
    ingested_at = ingested_at or NEVER
    source = source_name(table)

    def rows() -> Iterator[dict | None]:
        for number, record in enumerate(records, start=1):
            stats.rows_read += 1
            yield _row(record, source, number, (ingested_at, limits), stats)

    return window_batches(rows(), stats, days, batch_rows)


def _row(record: dict, source: str, number: int, at: tuple[datetime, Limits], stats: BillingRead):
    try:
        row = normalise(record, source, number, *at)
    except (BadRow, BadNumber, BadTimestamp) as exc:
        reason = str(exc)
    except UNEXPECTED as exc:  # a shape no check foresaw: quarantined with its name
        reason = f"unreadable row ({exc.__class__.__name__}: {str(exc)[:200]})"
    else:
        # A table row has no line (its place in a result is not stable from run to run).
        return {**row, "source_line": None}
    # A table has no lines: the quarantine row is keyed by the table and the raw row.
    stats.quarantined.append(Quarantined(SOURCE, source, None, reason, raw_text(record, "")))
    return None
