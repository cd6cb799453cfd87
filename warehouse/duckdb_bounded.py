"""One DuckDB query held to `Bounds` (warehouse/bounds.py): its rows as Arrow batches while
DuckDB makes them, and stopped at the time limit.

The stop is `interrupt()` called from a timer thread: DuckDB's way of stopping a running query
from outside it (what Ctrl-C does in its shell); the query ends at its next check, and the
connection stays usable. The memory limit is the database's (`SET memory_limit`), set by
whoever made the connection: warehouse/duckdb_reader.py, before the configuration is locked.

DuckDB says a limit was hit in one of two ways: a `duckdb.Error` while the query starts, or,
once rows stream, an OSError out of Arrow's stream that carries DuckDB's message. Both become
the one QueryError for that limit.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pyarrow as pa

import duckdb
from flopledger.warehouse.base import QueryError
from flopledger.warehouse.bounds import BATCH_ROWS, Bounds, QueryOutOfMemory, QueryTimeout, Rows

OUT_OF_MEMORY = "Out of Memory Error"  # how DuckDB's message starts, through Arrow's stream


class _Deadline:
    """While the block runs: `cursor` interrupted `timeout_s` after it started. Stopped (under
    the lock) before the block's end, so a cursor is never interrupted once its query is over,
    nor once it is closed."""

    def __init__(self, cursor: duckdb.DuckDBPyConnection, timeout_s: float) -> None:
        self._cursor = cursor
        self._lock = threading.Lock()
        self._timer = threading.Timer(timeout_s, self._fire)
        self._timer.daemon = True  # never keeps the process alive
        self._over = False
        self.fired = False

    def _fire(self) -> None:
        with self._lock:
            if not self._over:
                self.fired = True
                self._cursor.interrupt()

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._over = True
        self._timer.cancel()


@contextmanager
def streamed(cursor: duckdb.DuckDBPyConnection, sql: str, bounds: Bounds) -> Iterator[Rows]:
    """`sql` run on `cursor` (the caller's to close) under `bounds`' time limit and row count:
    its rows while the block runs, to be read inside it."""
    batch_rows = min(BATCH_ROWS, bounds.max_rows or BATCH_ROWS)
    with _Deadline(cursor, bounds.timeout_s) as deadline:
        try:
            reader = cursor.sql(sql).to_arrow_reader(batch_rows)
        except duckdb.Error as exc:
            raise _limit_hit(exc, deadline, bounds) from exc
        if reader is None:  # no result set (DuckDB's stubs allow it; statements give one)
            raise QueryError("the statement gave no rows to print")
        try:
            yield Rows(reader.schema, _batches(reader, deadline, bounds))
        finally:
            reader.close()


def _batches(
    reader: pa.RecordBatchReader, deadline: _Deadline, bounds: Bounds
) -> Iterator[pa.RecordBatch]:
    """The reader's batches, `bounds.max_rows` rows at most; a limit hit as its QueryError."""
    left = bounds.max_rows
    while left is None or left > 0:
        try:
            batch = reader.read_next_batch()
        except StopIteration:
            return
        except (duckdb.Error, OSError, pa.ArrowException) as exc:
            raise _limit_hit(exc, deadline, bounds) from exc
        if left is not None:
            batch = batch.slice(0, left)
            left -= batch.num_rows
        yield batch


def _limit_hit(exc: Exception, deadline: _Deadline, bounds: Bounds) -> QueryError:
    """The QueryError for DuckDB's error `exc`: the memory limit, the time limit (the timer
    interrupted the query, whatever DuckDB then said), or the error in its first line."""
    line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    if isinstance(exc, duckdb.OutOfMemoryException) or OUT_OF_MEMORY in line:
        return QueryOutOfMemory(f"over its memory limit of {bounds.memory_limit}: {line}")
    if deadline.fired:
        return QueryTimeout(f"stopped at its time limit of {bounds.timeout_s:g} s")
    return QueryError(line)
