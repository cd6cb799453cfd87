"""What every warehouse implementation offers. Nothing outside `warehouse/` asks which
implementation is active, and no caller hands it SQL text to splice into a statement:
tables and columns are named by identifiers (checked), values are bound parameters."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from flopledger import models

if TYPE_CHECKING:
    from flopledger.clients.bigquery import Param
    from flopledger.warehouse.bounds import Bounds, Rows

# Positional (`?`) or named (`$name`) parameters.
Params = Sequence[Any] | Mapping[str, Any] | None

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def identifier(name: str) -> str:
    """`name` if it is a plain SQL identifier; anything else is refused, never quoted in."""
    if not _IDENTIFIER.match(name):
        raise ValueError(f"not a plain identifier: {name!r}")
    return name


def same_days(data: pa.Table, day: str | None) -> str:
    """A filter on `day` to the days `data` holds (DATE literals, so BigQuery prunes its
    partitions by it), or TRUE without a column; FALSE when `data` holds no day."""
    if day is None:
        return "TRUE"
    days = sorted({d for d in data[day].to_pylist() if d is not None})
    if not days:
        return "FALSE"
    return f"{identifier(day)} IN (" + ", ".join(f"DATE '{d.isoformat()}'" for d in days) + ")"


class QueryError(Exception):
    """A query the warehouse refused (bad SQL, a missing table, a read-only violation)."""


class NoWarehouse(QueryError):
    """Nothing has been built (or published) yet."""


class WarehouseLocked(Exception):
    """Another process holds the warehouse's write lock (DuckDB allows one writer per file)."""

    def __init__(self, path: str, pid: int | None) -> None:
        self.path, self.pid = path, pid
        holder = f"process {pid}" if pid is not None else "another process"
        super().__init__(
            f"{path} is locked by {holder}: one writer at a time; wait for it to finish "
            "(or stop it), then run again"
        )


@dataclass(frozen=True)
class Published:
    """What a publish did: where readers now read, how (`changes`: the changes since the file
    was last published applied to it; `full copy`, with its reason; `marker`: BigQuery's
    marker table), and each table it wrote (`name: day, day`, `name: whole`, `name: dropped`,
    `name: created`, `name: remade` when its columns changed)."""

    path: str
    how: str
    reason: str = ""
    applied: tuple[str, ...] = ()

    def summary(self) -> str:
        """One line for a person: how, why, and what was applied."""
        why = f" ({self.reason})" if self.reason else ""
        if self.applied:
            return f"{self.how}{why}: " + "; ".join(self.applied)
        return f"{self.how}{why}" + (": nothing changed" if self.how == "changes" else "")


@dataclass(frozen=True)
class ColumnInfo:
    table: str
    column: str
    data_type: str
    comment: str


@dataclass(frozen=True)
class TableInfo:
    table: str
    comment: str
    columns: tuple[ColumnInfo, ...]


@dataclass(frozen=True)
class Plan:
    """What an upgrade of the raw tables would do; `to_do` empty when there is nothing."""

    migrations: tuple[models.Migration, ...] = ()  # not yet recorded, in order
    added: tuple[str, ...] = ()  # "table" or "table.column": made by the next ensure_schema
    retyped: tuple[str, ...] = ()  # columns of another type, no migration for them

    def to_do(self) -> list[str]:
        """One line per thing to do, in words."""
        lines = [f"migration {m.name}: {m.description}" for m in self.migrations]
        lines += [f"add {what} (this version's DDL has it)" for what in self.added]
        lines += [
            f"{what}: no migration changes it; see CHANGELOG.md before running"
            for what in self.retyped
        ]
        return lines


class Reader(ABC):
    """Read-only queries against the latest published snapshot: dashboards and `flopledger sql`.

    A reader never takes the pipeline's write lock and never sees half a run."""

    @abstractmethod
    def version(self) -> str:
        """Changes whenever a new snapshot is published: the key for caching results."""

    @abstractmethod
    def query(self, sql: str, params: Params = None) -> pa.Table:
        """One read-only query with bound parameters. Raises QueryError (NoWarehouse if none)."""

    @abstractmethod
    def close(self) -> None:
        """Release what the reader holds open."""


class InPlace(ABC):
    """A warehouse's engine reading a table where it lies, beside the warehouse's own tables
    (the billing export read in place, ingest/gcp_billing/in_place.py): the table's schema,
    queries over it, and scratch tables made beside it and dropped after. `Warehouse.in_place`
    says whether a warehouse offers it for a table's endpoint and location."""

    @abstractmethod
    def table_fields(self, table: str) -> tuple[tuple[str, str, str, tuple], ...]:
        """`table`'s schema as (name, type, mode, subfields); () when it does not exist."""

    @abstractmethod
    def query_native(
        self, sql: str, params: Sequence[Param], max_bytes: int
    ) -> Iterator[pa.RecordBatch]:
        """A query in the engine's own dialect (models/bigquery/), never scanning more than
        `max_bytes`: its rows as Arrow batches."""

    @abstractmethod
    def query_reading(
        self, sql: str, sources: dict[str, str], params: Params = None, max_bytes: int | None = None
    ) -> pa.Table:
        """A DuckDB statement run by the engine, the tables named in `sources` read from where
        they lie (a table id, or a `SELECT * FROM table WHERE ...` whose filter joins the scan)."""

    @abstractmethod
    def create_scratch(self, prefix: str) -> str:
        """A fresh table id beside the warehouse's tables (nothing created yet)."""

    @abstractmethod
    def scratch_from_query(
        self,
        table_id: str,
        sql: str,
        sources: dict[str, str],
        params: Params = None,
        max_bytes: int | None = None,
    ) -> None:
        """Scratch table `table_id` made from a DuckDB statement (its sources as query_reading's)."""

    @abstractmethod
    def scratch_from_arrow(self, table_id: str, data: pa.Table) -> None:
        """Scratch table `table_id` loaded from a small Arrow table (strings and decimals)."""

    @abstractmethod
    def drop_scratch(self, table_id: str) -> None:
        """Drop a scratch table made by scratch_from_query or scratch_from_arrow."""


class Warehouse(ABC):
    """The tables people read in one schema (raw tables from `models/raw`, marts from
    `models/marts`) and the allocation's steps in an intermediate one (`models/intermediate`:
    DuckDB's `intermediate`, BigQuery's `<dataset>_intermediate`)."""

    def where(self) -> str:
        """Where the tables are, for a person to read (a file's path, a dataset)."""
        return type(self).__name__

    @abstractmethod
    def exists(self) -> bool:
        """Whether the warehouse has been created."""

    @abstractmethod
    def ensure_schema(self) -> None:
        """Create every raw table that is missing and (re)apply table and column comments."""

    @contextmanager
    def held(self) -> Iterator[None]:
        """The warehouse kept open by this process while the block runs, where each
        operation would otherwise open it afresh at a cost (DuckDB); elsewhere nothing."""
        yield

    @abstractmethod
    def query(self, sql: str, params: Params = None) -> pa.Table:
        """Run a read query with bound parameters; the result as Arrow."""

    @abstractmethod
    def execute(self, sql: str, params: Params = None) -> None:
        """Run one statement with bound parameters."""

    @abstractmethod
    def replace_days(
        self, table: str, day_column: str, days: Sequence[date], data: pa.Table
    ) -> int:
        """In one transaction: delete the rows of `table` whose UTC day of `day_column` is one
        of `days`, insert `data`. Returns rows inserted. This is how a partition is rebuilt:
        rerunning it changes nothing."""

    @abstractmethod
    def replace_all(self, table: str, data: pa.Table) -> int:
        """In one transaction: every row of `table` replaced by `data`. Returns rows inserted."""

    @abstractmethod
    def insert_new(self, table: str, data: pa.Table, key: str, day: str | None = None) -> int:
        """Insert the rows of `data` whose `key` is not in `table` yet. Returns rows inserted.
        With `day`, a DATE column the key determines (billing's row id hashes the usage day):
        only the rows of `table` on the incoming rows' days are compared, so the cost follows
        the days loaded, not the length of history (a partition filter on BigQuery)."""

    @abstractmethod
    def fill_nulls(self, table: str, keys: Sequence[str], data: pa.Table, when_null: str) -> int:
        """On the rows of `table` whose column `when_null` is null, set every column of `data`
        but `keys` from the row of `data` with the same `keys` (a null key equals a null; the
        keys of `data` are unique). Returns rows set. How columns a DDL added later (null in the
        rows loaded before) are filled, once."""

    @abstractmethod
    def build_mart(self, name: str) -> int:
        """(Re)build one mart or intermediate table from its SQL file, with its comments, in its
        schema. Returns its row count."""

    @abstractmethod
    def build_window(self, name: str, lo: date, hi: date, runs: Sequence[str] | None = None) -> int:
        """In one transaction: rebuild the rows of day- or month-grained model `name` that fall
        in [lo, hi) from the rows of the window its SQL reads (models/grain.py's `narrowed`);
        a run-grained model's rows of `runs` (and of runs no longer in jobs), reading [lo, hi).
        Records the days whose rows changed (a run-grained model: every day of the window).
        Returns rows written."""

    def upgrade_plan(self) -> Plan | None:
        """What an upgrade would do to the raw tables (warehouse/duckdb_migrations.py); None
        where this warehouse cannot tell (BigQuery: its columns are added by ensure_schema, a
        migration's SQL is the operator's to run)."""
        return None

    @abstractmethod
    def has_table(self, name: str) -> bool:
        """Whether the model's table exists (in its schema)."""

    # The bookkeeping (models/bookkeeping/): what changed, what was built. Every write above
    # records its own changes; these read them, and record what is changed otherwise.

    @abstractmethod
    def record_changes(self, table: str, days: Iterable[date] | None) -> None:
        """Record that `table`'s rows of `days` changed (None: the table as a whole)."""

    def bookkeeping_seq(self) -> int:
        """The newest change recorded (0: none)."""
        return int(self.query(models.query_sql("bookkeeping_seq"))["seq"][0].as_py())

    def pending_changes(self, tables: Sequence[str], since: int) -> set[date | None]:
        """The days of `tables` changed after change `since` (None among them: a whole table)."""
        found = self.query(
            models.query_sql("bookkeeping_pending"), {"tables": list(tables), "since": since}
        )
        return set(found["day"].to_pylist())

    def last_build(self, name: str) -> tuple[str, int] | None:
        """A model's last build: (its SQL's hash, the last change it took in), or None."""
        rows = self.query(
            models.query_sql("bookkeeping_last_build"), {"table_name": name}
        ).to_pylist()
        return (rows[0]["sql_hash"], int(rows[0]["through_seq"])) if rows else None

    def mark_built(self, name: str, sql_hash: str, through_seq: int, scope: str, rows: int) -> None:
        """Record a model's build (replacing its previous record): forget, then insert, the
        same two named queries on either warehouse."""
        self.execute(models.query_sql("bookkeeping_forget_build"), {"table_name": name})
        self.execute(
            models.query_sql("bookkeeping_mark_built"),
            {
                "table_name": name,
                "sql_hash": sql_hash,
                "through_seq": through_seq,
                "scope": scope,
                "rows_written": rows,
            },
        )

    def runs_touching(self, days: Sequence[date]) -> list[tuple[str, date, date]]:
        """The runs whose time covers one of `days`: (run_id, first day, last day)."""
        found = self.query(models.query_sql("runs_touching"), {"days": list(days)}).to_pylist()
        return [(r["run_id"], r["first_day"], r["last_day"]) for r in found]

    @abstractmethod
    def read_query(self, sql: str, params: Params = None) -> pa.Table:
        """A read-only query against the latest published snapshot (the live tables if none yet)."""

    @abstractmethod
    def read_bounded(self, sql: str, bounds: Bounds) -> AbstractContextManager[Rows]:
        """One person's read-only query, as read_query's, held to `bounds` (warehouse/bounds.py):
        stopped at its time limit, its engine's memory capped, and its rows, the number wanted
        at most, handed out batch by batch as they come, to be read inside the block."""

    @abstractmethod
    def reader(self) -> Reader:
        """A long-lived read-only reader of the published snapshot (dashboards keep one)."""

    @abstractmethod
    def publish_snapshot(self) -> Published:
        """Publish a consistent read-only copy for readers (dashboards, `flopledger sql`)."""

    @abstractmethod
    def catalogue(self, intermediate: bool = False) -> list[TableInfo]:
        """Every table of the published snapshot with its columns and comments, by name: the
        tables people read, or with `intermediate` the intermediate tables (their own schema)."""

    @abstractmethod
    def in_place(self, endpoint: str | None, location: str | None) -> InPlace | None:
        """This warehouse's engine as a reader of tables at `endpoint` (None: the service itself)
        and `location` where they lie, or None where it cannot read them there (they are then
        read out, row by row)."""
