"""Read-only queries against the BigQuery warehouse: dashboards and `flopledger sql`.

The same `Reader` as DuckDB's, over the warehouse's dataset. BigQuery needs no lock and no
snapshot: every table is replaced by one atomic job, so a query never sees half a table.

- SQL. Callers write DuckDB's dialect (dashboards/sql, docs/queries.md, `flopledger sql`); it
  is carried to BigQuery's by the models' own transpiler (`warehouse.transpile.to_bigquery`),
  its tables read from the warehouse's dataset. DuckDB's catalogue (`information_schema.*`,
  schema `main`, `current_database()`) reads the dataset's `INFORMATION_SCHEMA`.
- Read-only. One query statement (SELECT, WITH, UNION, ...) and nothing else: DML, DDL and
  scripts are refused here, before BigQuery sees them (the dashboard's service account has
  no write role either: docs/bigquery.md).
- Parameters are bound (`$name` or `?`) through the one BigQuery door, clients/bigquery.py;
  every job carries `maximum_bytes_billed`, so BigQuery refuses a query that would bill more.
- Bounds (`stream`, `flopledger sql`'s): the job is waited for up to the time limit, then
  cancelled (its own job timeout a little later stops it should the client die); its rows are
  read page by page, no more than wanted. BigQuery's engine runs on Google's servers: its memory
  is its own, the bytes billed the bound here.
- Version. A successful run records itself in the marker table `published_runs`
  (`mark_published`, called by the warehouse's `publish_snapshot`); the version is that
  table's last-modified time, read from its metadata (free: no query job), at most every
  `VERSION_TTL_S` seconds. Before the first publish a query is `NoWarehouse`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Context
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc
import sqlglot
from sqlglot import exp

from flopledger.clients import bigquery as bq
from flopledger.warehouse.base import NoWarehouse, Params, QueryError, Reader
from flopledger.warehouse.bounds import Bounds, QueryTimeout, Rows
from flopledger.warehouse.transpile import TranspileError, to_bigquery

if TYPE_CHECKING:
    from flopledger.warehouse.bigquery import BigQueryWarehouse

# The marker a successful run replaces (one row: when); its modified time is the version.
MARKER = "published_runs"
VERSION_TTL_S = 10.0  # dashboards ask for the version before every query
# DuckDB's name for the default schema: the warehouse's dataset in BigQuery.
DUCKDB_SCHEMA = "main"
QUERIES = (exp.Select, exp.Union, exp.Intersect, exp.Except, exp.Subquery)


class BigQueryReader(Reader):
    """Queries `project.dataset` read-only; one client, shared by threads (Streamlit's)."""

    def __init__(
        self, warehouse: BigQueryWarehouse, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.warehouse, self.clock = warehouse, clock
        self._lock = threading.Lock()
        self._version, self._checked = "", float("-inf")

    @cached_property
    def client(self) -> bq.Client:
        """The reader's own client (closed with it), made on first use."""
        w = self.warehouse
        return bq.make_client(w.project, w.endpoint, w._credentials, w.location)

    def version(self) -> str:
        with self._lock:
            if self.clock() - self._checked < VERSION_TTL_S:
                return self._version
        try:
            modified = bq.table_modified(self.client, self.warehouse.table_id(MARKER))
        except bq.BigQueryError:
            modified = None  # unreachable now: the query says why
        version = "" if modified is None else f"{self.warehouse.dataset_id}:{modified}"
        with self._lock:
            self._version, self._checked = version, self.clock()
        return version

    def _readable(self, sql: str) -> str:
        """`sql` as BigQuery's, once a run has published the warehouse (else NoWarehouse)."""
        text = bigquery_sql(sql, self.warehouse.dataset_id)
        if not self.version() and not self._published():
            raise NoWarehouse(
                f"{self.warehouse.dataset_id}: nothing published yet (a `flopledger run` that "
                "passes its checks publishes the warehouse)"
            )
        return text

    def query(self, sql: str, params: Params = None) -> pa.Table:
        text = self._readable(sql)
        try:
            table = bq.run_query(self.client, text, params, self.warehouse.max_bytes_billed)
        except bq.BigQueryError as exc:
            raise QueryError(str(exc).strip().splitlines()[0]) from None
        return naive_utc(table)

    @contextmanager
    def stream(self, sql: str, bounds: Bounds) -> Iterator[Rows]:
        """`sql` held to `bounds`' time limit and row count, its rows page by page in the
        warehouse's types (`naive_utc`). With a row count the rows (few) are made one batch,
        so that a BIGNUMERIC column has one scale for them all."""
        pages = _translated(
            bq.query_bounded(
                self.client,
                self._readable(sql),
                self.warehouse.max_bytes_billed,
                bounds.timeout_s,
                bounds.max_rows,
            )
        )
        if bounds.max_rows is not None:
            pages = iter(_as_warehouse(list(pages)))
        else:
            pages = (batch for page in pages for batch in _as_warehouse([page]))
        first = next(pages, None)
        batches = pages if first is None else _chained(first, pages)
        schema = pa.schema([]) if first is None else first.schema
        yield Rows(schema, batches)

    def _published(self) -> bool:
        """Whether the marker is there, asked now: an unreachable endpoint or a refusal is a
        QueryError saying so, not "nothing published"."""
        try:
            marker = bq.table_modified(self.client, self.warehouse.table_id(MARKER))
        except bq.BigQueryError as exc:
            raise QueryError(str(exc).strip().splitlines()[0]) from None
        return marker is not None

    def close(self) -> None:
        client = self.__dict__.pop("client", None)  # made only if something was read
        if client is not None:
            client.close()


def _translated(pages: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The pages, the client's errors as the reader's."""
    try:
        yield from pages
    except bq.BigQueryTimeout as exc:
        raise QueryTimeout(str(exc)) from None
    except bq.BigQueryError as exc:
        raise QueryError(str(exc).strip().splitlines()[0]) from None


def _as_warehouse(pages: list[pa.RecordBatch]) -> list[pa.RecordBatch]:
    """`pages` as one batch in the warehouse's types (none for none)."""
    if not pages:
        return []
    table = naive_utc(pa.Table.from_batches(pages)).combine_chunks()
    return table.to_batches() or [pa.RecordBatch.from_pylist([], schema=table.schema)]


def _chained(first: pa.RecordBatch, rest: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    yield first
    yield from rest


def naive_utc(table: pa.Table) -> pa.Table:
    """BigQuery's TIMESTAMPs (UTC) as the warehouse's naive UTC times, and its BIGNUMERICs as
    38-digit decimals (as DuckDB returns them: polars and pandas' tools read no 256-bit
    decimal; polars panics on one)."""
    for index, field in enumerate(table.schema):
        column = table.column(index)
        if pa.types.is_timestamp(field.type) and field.type.tz is not None:
            table = table.set_column(index, field.name, column.cast(pa.timestamp(field.type.unit)))
        elif pa.types.is_decimal256(field.type):
            table = table.set_column(index, field.name, _decimal128(column))
    return table


def _decimal128(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """`column` as a 38-digit decimal: exactly where every value fits (money: 9 places);
    otherwise (a BIGNUMERIC average or quotient, 38 places, where DuckDB gives a DOUBLE) each
    value rounded half-even to the places 38 digits leave beside the largest integer part, so
    still closer than a DOUBLE; a value of more than 38 integer digits makes it DOUBLE."""
    places, digits = 0, 1
    exact = Context(prec=80)  # normalize() in the default context would round to 28 digits
    for value in column.to_pylist():
        if value is None or not value.is_finite():
            continue
        normal = value.normalize(exact)
        exponent = normal.as_tuple().exponent
        assert isinstance(exponent, int)
        places = max(places, -exponent)
        digits = max(digits, normal.adjusted() + 1)
    if digits + places <= 38:
        return column.cast(pa.decimal128(38, places))
    for scale in (38 - digits, 37 - digits):  # rounding up may carry into one more digit
        if scale < 0:
            break
        try:
            return pc.round(column, ndigits=scale).cast(pa.decimal128(38, scale))
        except pa.ArrowInvalid:
            continue
    return column.cast(pa.float64())


def mark_published(warehouse: BigQueryWarehouse) -> str:
    """Record a publish: the marker table replaced (one job, no bytes scanned). Returns its id."""
    table = warehouse.table_id(MARKER)
    bq.run_query(
        warehouse.client,
        f"CREATE OR REPLACE TABLE `{table}` "
        "OPTIONS (description = 'One row: when the last run that passed its checks published "
        "the warehouse. Readers key their caches on its modified time.') "
        "AS SELECT CURRENT_TIMESTAMP() AS published_at",
        None,
        warehouse.max_bytes_billed,
    )
    return table


@lru_cache(maxsize=512)
def bigquery_sql(sql: str, dataset: str) -> str:
    """One read-only DuckDB-dialect query as BigQuery SQL over `project.dataset`, or
    QueryError (not one query statement, not parsed, no BigQuery form)."""
    read_only(sql)
    try:
        text = to_bigquery(sql, dataset)
    except TranspileError as exc:
        raise QueryError(str(exc)) from None
    if "information_schema" not in text.lower():
        return text  # not parsed again: SQLGlot would drop the types' declared precision
    return _catalogue(sqlglot.parse_one(text, read="bigquery"), dataset).sql(dialect="bigquery")


def read_only(sql: str) -> None:
    """Refuse anything but one query statement (DML, DDL, scripts, several statements)."""
    try:
        statements = [s for s in sqlglot.parse(sql, read="duckdb") if s is not None]
    except sqlglot.errors.SqlglotError as exc:
        raise QueryError(f"not parsed as SQL: {str(exc).strip().splitlines()[0]}") from None
    if len(statements) != 1:
        raise QueryError(f"one query at a time ({len(statements)} statements given)")
    if not isinstance(statements[0], QUERIES):
        first = sql.split(maxsplit=1)[0].upper()
        raise QueryError(f"read-only: only a query (SELECT, WITH ...) may run here, not {first}")


def _catalogue(tree: exp.Expr, dataset: str) -> exp.Expr:
    """DuckDB's catalogue read from the dataset's INFORMATION_SCHEMA: `information_schema.x`
    is `project.dataset.INFORMATION_SCHEMA.X`, its schema `main` is the dataset and
    `current_database()` the project."""
    project, name = dataset.rsplit(".", 1)  # a domain-scoped project: example.com:analytics
    for table in list(tree.find_all(exp.Table)):
        view = _information_schema_view(table)
        if view is not None:
            path = f"{project}.{name}.INFORMATION_SCHEMA.{view.upper()}"
            read = exp.Table(this=exp.to_identifier(path, quoted=True))
            read.set("alias", exp.TableAlias(this=exp.to_identifier(table.alias or view)))
            table.replace(read)

    def rename(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.CurrentDatabase):
            return exp.Literal.string(project)
        if isinstance(node, exp.EQ) and _is_schema_main(node):
            column = node.this if isinstance(node.this, exp.Column) else node.expression
            return exp.EQ(this=column.copy(), expression=exp.Literal.string(name))
        return node

    return tree.transform(rename)


def _information_schema_view(table: exp.Table) -> str | None:
    """`tables` of `information_schema.tables` (BigQuery's parser reads it as one name)."""
    if table.catalog:
        return None
    if table.db.lower() == "information_schema":
        return table.name
    schema, dot, view = table.name.partition(".")
    if not table.db and dot and schema.lower() == "information_schema":
        return view
    return None


def _is_schema_main(node: exp.EQ) -> bool:
    """`table_schema = 'main'` (either way round): DuckDB's default schema named."""
    sides = (node.this, node.expression)
    columns = [s for s in sides if isinstance(s, exp.Column)]
    literals = [s for s in sides if isinstance(s, exp.Literal) and s.is_string]
    return (
        len(columns) == 1
        and columns[0].name.lower() in ("table_schema", "schema_name")
        and len(literals) == 1
        and literals[0].name == DUCKDB_SCHEMA
    )
