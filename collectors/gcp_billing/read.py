"""Read billing export extracts (NDJSON and Parquet, as a BigQuery extract writes them)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

import pyarrow as pa

from collectors.files import Unreadable, iter_records, raw_text
from collectors.gcp_billing.normalise import BadRow, normalise
from collectors.gcp_billing.schema import BILLING_SCHEMA
from collectors.limits import DEFAULT_LIMITS, Limits
from collectors.money import BadNumber
from collectors.quarantine import Quarantined
from collectors.timeparse import BadTimestamp

SOURCE = "gcp_billing"
UNEXPECTED = (TypeError, ValueError, ArithmeticError, KeyError, AttributeError, RecursionError)


@dataclass
class BillingRead:
    """What one pass over the extracts found. rows_read = rows_in_window + rows_outside_window + rows_quarantined."""

    rows_read: int = 0
    rows_in_window: int = 0
    rows_outside_window: int = 0
    quarantined: list[Quarantined] = field(default_factory=list)

    @property
    def rows_quarantined(self) -> int:
        return len(self.quarantined)


def iter_billing_batches(
    files: list[Path],
    stats: BillingRead,
    days: Collection[date] | None = None,
    ingested_at: datetime | None = None,
    batch_rows: int = 50_000,
    limits: Limits = DEFAULT_LIMITS,
) -> Iterator[pa.Table]:
    """Batches of `billing_line_items` rows whose usage day is in `days` (all days when None).

    Counts and quarantined rows are added to `stats` as the files are read."""
    ingested_at = ingested_at or datetime(1970, 1, 1)

    def rows() -> Iterator[dict | None]:
        for path in files:
            for line, record, raw in iter_records(path):
                stats.rows_read += 1
                yield _row(record, raw, path, line, (ingested_at, limits), stats)

    return window_batches(rows(), stats, days, batch_rows)


def window_batches(
    rows: Iterable[dict | None],
    stats: BillingRead,
    days: Collection[date] | None,
    batch_rows: int,
) -> Iterator[pa.Table]:
    """Normalised rows (None: quarantined already) whose usage day is in `days` (all when
    None), as `billing_line_items` batches; rows of other days are counted, not kept. The one
    loop behind extract files and the export table."""
    batch: list[dict] = []
    for row in rows:
        if row is None:
            continue
        if days is not None and row["usage_day"] not in days:
            stats.rows_outside_window += 1
            continue
        stats.rows_in_window += 1
        batch.append(row)
        if len(batch) >= batch_rows:
            yield pa.Table.from_pylist(batch, schema=BILLING_SCHEMA)
            batch = []
    if batch:
        yield pa.Table.from_pylist(batch, schema=BILLING_SCHEMA)


def _row(record, raw: str, path: Path, line: int | None, at: tuple[datetime, Limits], stats):
    reason = None
    if isinstance(record, Unreadable):
        reason = str(record)
    else:
        try:
            return normalise(record, str(path), line or 0, *at)
        except (BadRow, BadNumber, BadTimestamp) as exc:
            reason = str(exc)
        except UNEXPECTED as exc:  # a shape no check foresaw: quarantined with its name
            reason = f"unreadable row ({exc.__class__.__name__}: {str(exc)[:200]})"
    stats.quarantined.append(Quarantined(SOURCE, str(path), line, reason, raw_text(record, raw)))
    return None


def read_billing_files(
    files: list[Path],
    days: Collection[date] | None = None,
    ingested_at: datetime | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[pa.Table, BillingRead]:
    """All rows at once (small inputs, tests); large inputs use `iter_billing_batches`."""
    stats = BillingRead()
    batches = list(iter_billing_batches(files, stats, days, ingested_at, limits=limits))
    table = pa.concat_tables(batches) if batches else BILLING_SCHEMA.empty_table()
    return table, stats
