"""Read billing export extracts (NDJSON and Parquet, as a BigQuery extract writes them)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from flopledger.collectors.files import JSON_SUFFIXES, Unreadable, iter_records, raw_text
from flopledger.collectors.gcp_billing.columnar import (
    ArrowEngine,
    in_line_order,
    is_export_parquet,
    plain_rows,
)
from flopledger.collectors.gcp_billing.normalise import BadRow, normalise
from flopledger.collectors.gcp_billing.schema import BILLING_SCHEMA
from flopledger.collectors.limits import DEFAULT_LIMITS, Limits
from flopledger.collectors.money import BadNumber
from flopledger.collectors.quarantine import Quarantined
from flopledger.collectors.timeparse import BadTimestamp

SOURCE = "gcp_billing"
# NDJSON extracts read by one statement: a few days of a large fleet, far below its memory.
GROUP_BYTES = 64 * 1024 * 1024
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
    engine: ArrowEngine | None = None,
) -> Iterator[pa.Table]:
    """Batches of `billing_line_items` rows whose usage day is in `days` (all days when None),
    a file at a time, rows in file and line order.

    With an `engine` (warehouse/arrow_sql.py's ArrowSQL) NDJSON extracts are read in columns
    (collectors/gcp_billing/columnar.py); without one, a row at a time. Both give the same rows
    and quarantine. Counts and quarantined rows are added to `stats` as the files are read."""
    at = (ingested_at or datetime(1970, 1, 1), limits)
    pending: list[tuple[Path, bytes | None]] = []  # extracts read together, in file order

    def flush() -> Iterator[pa.Table]:
        assert engine is not None
        for path, plain, rest in plain_rows(engine, pending, *at):
            stats.rows_read += plain.num_rows
            rows = _rows(((line, record, raw, path) for line, record, raw in rest), at, stats)
            normalised = pa.Table.from_pylist(
                [r for r in rows if r is not None], schema=BILLING_SCHEMA
            )
            yield from _in_window(in_line_order([plain, normalised]), stats, days, batch_rows)
        pending.clear()

    for path in files:
        data = _columnar_input(path) if engine is not None else False
        if data is not False:
            assert not isinstance(data, bool)
            pending.append((path, data))
            size = sum(len(d) if d is not None else 10 * p.stat().st_size for p, d in pending)
            if size >= GROUP_BYTES:
                yield from flush()
            continue
        yield from flush() if pending else ()
        records = ((line, record, raw, path) for line, record, raw in iter_records(path))
        yield from window_batches(_rows(records, at, stats), stats, days, batch_rows)
    if pending:
        yield from flush()


def in_batches_of(batches: Iterable[pa.Table], rows: int) -> Iterator[pa.Table]:
    """The same rows in the same order, in tables of at least `rows` (the last may be
    smaller): the readers yield a table per extract, and each warehouse insert costs a scan
    of the keys already stored, so fewer, larger inserts are far cheaper."""
    pending: list[pa.Table] = []
    held = 0
    for batch in batches:
        pending.append(batch)
        held += batch.num_rows
        if held >= rows:
            yield pa.concat_tables(pending)
            pending, held = [], 0
    if pending:
        yield pa.concat_tables(pending)


def _columnar_input(path: Path) -> bytes | None | bool:
    """What the columnar reader takes of a file: an NDJSON extract's bytes, None for a
    Parquet extract of the export's schema, False for a file the per-row reader reads."""
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        return None if is_export_parquet(path) else False
    if suffix not in JSON_SUFFIXES or path.stat().st_size > GROUP_BYTES:
        return False  # a huge extract is streamed a line at a time: memory stays bounded
    data = path.read_bytes()
    return False if b"\r" in data else data


def _rows(records, at: tuple[datetime, Limits], stats: BillingRead) -> Iterator[dict | None]:
    for line, record, raw, path in records:
        stats.rows_read += 1
        yield _row(record, raw, path, line, at, stats)


def _in_window(
    table: pa.Table, stats: BillingRead, days: Collection[date] | None, batch_rows: int
) -> Iterator[pa.Table]:
    if days is not None:
        keep = pc.is_in(table["usage_day"], value_set=pa.array(sorted(days), pa.date32()))
        kept = table.filter(keep)
        stats.rows_outside_window += table.num_rows - kept.num_rows
        table = kept
    stats.rows_in_window += table.num_rows
    for start in range(0, table.num_rows, batch_rows):
        yield table.slice(start, batch_rows)


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
    engine: ArrowEngine | None = None,
) -> tuple[pa.Table, BillingRead]:
    """All rows at once (small inputs, tests); large inputs use `iter_billing_batches`."""
    stats = BillingRead()
    batches = list(
        iter_billing_batches(files, stats, days, ingested_at, limits=limits, engine=engine)
    )
    table = pa.concat_tables(batches) if batches else BILLING_SCHEMA.empty_table()
    return table, stats
