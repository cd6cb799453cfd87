"""The bounds one person's query runs under (`flopledger sql`), and the errors that say which
one it hit.

Unbounded, a query ran until it was killed (a cross join of 1e12 rows), its engine could take
DuckDB's default of 80% of the machine's memory, and its result was gathered whole before a
row was printed (a 1e8-row result reached 3.5 GB and ran out of memory). Held to `Bounds`, it
is stopped at a time limit, its engine's memory is capped, and its rows come out batch by batch
as the engine makes them, so the command holds about one batch whatever the result's size.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pyarrow as pa

from flopledger.warehouse.base import QueryError

# Rows handed out at a time: a few MB for the widest mart, and few enough calls that the
# writer's per-batch cost does not show.
BATCH_ROWS = 65_536


@dataclass(frozen=True)
class Bounds:
    """`timeout_s`: seconds from the query's start to its last row handed out. `memory_limit`:
    the engine's memory, written as DuckDB reads it ('4GB', '512MiB'; BigQuery's engine is
    Google's, its bound is the bytes a job may bill). `max_rows`: the rows wanted (None: all);
    the rest are never fetched."""

    timeout_s: float
    memory_limit: str
    max_rows: int | None = None


@dataclass(frozen=True)
class Rows:
    """A result as it comes: its columns, then its rows, one Arrow batch at a time. Iterating
    may raise a QueryError part-way (the time limit reached while rows were coming)."""

    schema: pa.Schema
    batches: Iterator[pa.RecordBatch]


class QueryTimeout(QueryError):
    """The query reached its time limit and was stopped."""


class QueryOutOfMemory(QueryError):
    """The query needed more memory than its limit."""
