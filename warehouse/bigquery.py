"""The warehouse in BigQuery: one dataset holds every raw table and mart, and a second beside
it, `<dataset>_intermediate`, the intermediate tables (models/intermediate/; DuckDB keeps them
in a schema of that name); unqualified names in the models resolve to one or the other, and
the models are the DuckDB ones transpiled at run time (warehouse/transpile.py). Jobs go through the one BigQuery door, clients/bigquery.py.

Raw tables are loaded as Parquet load jobs, partitioned by UTC day and clustered by the keys
the marts join on; a day is replaced by truncating exactly its partition. Marts are built by
CREATE OR REPLACE TABLE, partitioned by their day and clustered by their keys (MART_LAYOUT),
so a page's day filter reads only its partitions. BigQuery needs no snapshot: a reader
queries the dataset, and each table changes atomically (one job).

The billing export beside the warehouse is read in place (ingest/gcp_billing/in_place.py,
through the `InPlace` this warehouse offers on its own endpoint and location): one model
normalises its rows inside BigQuery into a scratch table (`scratch_from_query`, the export read
through `query_reading`'s sources) and the new ones are inserted from there; only the rows the
model cannot prove plain are read out for the per-row normaliser (docs/bigquery.md, "The
billing export read in place")."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import date, timedelta
from functools import cached_property
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from flopledger import models
from flopledger.clients import bigquery as bq
from flopledger.models.grain import HI, LO, RUNS, Grain
from flopledger.models.sql_text import without_comments
from flopledger.warehouse.base import (
    ColumnInfo,
    InPlace,
    Params,
    Published,
    Reader,
    TableInfo,
    Warehouse,
    identifier,
    same_days,
)
from flopledger.warehouse.bounds import Bounds, Rows
from flopledger.warehouse.transpile import Column, columns, dataset_of, to_bigquery

# Each day-replaced raw table: the column whose UTC day is its partition (the one its
# replace_days names), and the keys the marts join it on (its clustering).
PARTITIONS = {
    "billing_line_items": "usage_day",
    "jobs": "submitted_day",
    "job_placements": "submitted_day",
    "gpu_samples": "minute",
    "tpu_samples": "minute",
    "probe_results": "measured_at",
    "focus_line_items": "charge_day",
    "managed_requests": "started_at",
    "managed_usage": "bucket_start",
    "managed_costs": "bucket_start",
}
CLUSTERS = {
    "billing_line_items": ("project_id", "resource_name", "sku_id"),
    "jobs": ("run_id",),
    "job_placements": ("run_id", "resource_name"),
    "gpu_samples": ("project_id", "resource_name", "node"),
    "tpu_samples": ("project_id", "resource_name", "node_id"),
    "probe_results": ("node",),
    "managed_requests": ("project_id",),
}
# Each mart's partitioning, as BigQuery's PARTITION BY takes it: its day (DATE(hour) of an
# hourly mart's TIMESTAMP, a daily mart's DATE, a monthly mart's month by MONTH), so a dashboard page's day filter reads only its
# partitions; and the keys pages filter and marts join it on (its clustering, 4 at most; no
# FLOAT or JSON). A mart not named here (a handful of rows: books, spend_monthly, the run- and
# job-level summaries but cost_per_run) is built unpartitioned.
HOURLY, DAILY, MONTHLY = "DATE(hour)", "day", "DATE_TRUNC(month, MONTH)"
MART_LAYOUT: dict[str, tuple[str, tuple[str, ...]]] = {
    "billing_hourly": (HOURLY, ("project_id", "resource_name")),
    "commitment_allocation": (HOURLY, ("commitment_id", "project_id", "resource_name")),
    "run_held_hours": (HOURLY, ("run_id", "project_id", "resource_name")),
    "run_allocation": (HOURLY, ("run_id", "project_id", "resource_name")),
    "run_utilisation": (HOURLY, ("run_id", "project_id", "resource_name")),
    "resource_hour_pool": (HOURLY, ("project_id", "resource_name")),
    "resource_hour_busy": (HOURLY, ("project_id", "resource_name")),
    "resource_hour_utilisation": (HOURLY, ("project_id", "resource_name")),
    "accelerator_cost_hourly": (HOURLY, ("project_id", "resource_name")),
    "idle_capacity": (HOURLY, ("provider", "project_id", "resource_name")),
    "allocation_issues": (HOURLY, ("project_id", "resource_name")),
    "pod_gpu_hourly": (HOURLY, ("project_id", "resource_name", "node")),
    "commitment_hourly": (HOURLY, ("commitment_id",)),
    "commitment_demand_hourly": (HOURLY, ()),
    "unused_capacity": (HOURLY, ("project_id",)),
    "accelerator_efficiency": (DAILY, ("node",)),
    "cost_per_request": (DAILY, ("provider", "team")),
    "managed_inference_daily": (DAILY, ("provider", "team", "project_id")),
    "commitment_utilisation": (DAILY, ("commitment_id",)),
    "cost_explorer_rows": (DAILY, ("provider", "project_id", "run_id")),
    "cost_per_million_tokens": (DAILY, ("team",)),
    "egress_daily": (DAILY, ("project_id", "team")),
    "idle_capacity_daily": (DAILY, ("provider", "project_id")),
    "inference_comparison": (DAILY, ("provider",)),
    "spend_daily": (DAILY, ("provider", "project_id", "team")),
    "storage_growth": (DAILY, ("project_id", "team")),
    "accelerator_portfolio": (MONTHLY, ()),
    "model_portfolio": (MONTHLY, ()),
    "team_chargeback": (MONTHLY, ("team",)),
    "focus_costs": ("DATE(charge_period_start)", ("billing_account_id", "sub_account_id")),
    "cost_per_run": ("run_day", ("team", "project_id", "run_id")),
}
# insert_new's ordinal of each incoming row: which of two rows with one key is kept.
INCOMING_ORDER = "__flopledger_incoming_order"


class BigQueryWarehouse(Warehouse, InPlace):
    """`project.dataset` in BigQuery; `endpoint` a local emulator instead of Google. It reads
    tables in place on its own endpoint and location (`in_place`)."""

    def __init__(
        self,
        project: str,
        dataset: str,
        location: str | None = None,
        endpoint: str | None = None,
        max_bytes_billed: int = 100 * 2**30,
        credentials: Any = None,
    ) -> None:
        self.project, self.dataset = project, identifier(dataset)
        self.location, self.endpoint, self.max_bytes_billed = location, endpoint, max_bytes_billed
        self._credentials = credentials

    @property
    def dataset_id(self) -> str:
        """`project.dataset`: the jobs' default dataset."""
        return f"{self.project}.{self.dataset}"

    def where(self) -> str:
        return f"BigQuery dataset {self.dataset_id}"

    def table_id(self, table: str) -> str:
        """`project.dataset.table`; an intermediate table's dataset is `<dataset>_intermediate`."""
        return f"{self.project}.{dataset_of(self.dataset, identifier(table))}.{table}"

    @property
    def intermediate_dataset_id(self) -> str:
        """Where the intermediate tables are built, beside the dataset people read."""
        return f"{self.project}.{self.dataset}_{models.INTERMEDIATE_SCHEMA}"

    @property
    def bookkeeping_dataset_id(self) -> str:
        """Where the warehouse keeps its own records (what changed, what was built)."""
        return f"{self.project}.{self.dataset}_{models.BOOKKEEPING_SCHEMA}"

    def _quoted(self, table: str) -> str:
        return f"`{self.table_id(table)}`"

    @cached_property
    def client(self) -> bq.Client:
        """Made on first use, never at construction (a workspace loads without a warehouse)."""
        return bq.make_client(self.project, self.endpoint, self._credentials, self.location)

    def exists(self) -> bool:
        return bq.table_exists(self.client, self.table_id(models.raw_tables()[0].name))

    def ensure_schema(self) -> None:
        bq.ensure_dataset(self.client, self.dataset_id, self.location)
        bq.ensure_dataset(self.client, self.intermediate_dataset_id, self.location)
        bq.ensure_dataset(self.client, self.bookkeeping_dataset_id, self.location)
        for table in (*models.raw_tables(), *models.bookkeeping_tables()):
            bq.create_table(
                self.client,
                self.table_id(table.name),
                columns(table),
                table.table_comment,
                PARTITIONS.get(table.name),
                CLUSTERS.get(table.name, ()),
            )
        for name in models.MOVED_TO_BOOKKEEPING:
            self._move_to_bookkeeping(name)

    def _move_to_bookkeeping(self, table: str) -> None:
        """A dataset made before `settings_history` and `restatements` were the bookkeeping's
        holds them itself: their rows move to the bookkeeping dataset once (one script), and
        the old table goes."""
        old = f"{self.project}.{self.dataset}.{identifier(table)}"
        if not bq.table_exists(self.client, old):
            return
        self._run(
            "BEGIN TRANSACTION;\n"
            f"INSERT INTO {self._quoted(table)} SELECT * FROM `{old}`;\n"
            "COMMIT TRANSACTION;"
        )
        bq.drop_table(self.client, old)

    def query(self, sql: str, params: Params = None) -> pa.Table:
        return self._run(to_bigquery(sql, self.dataset_id), params)

    def execute(self, sql: str, params: Params = None) -> None:
        self._run(to_bigquery(sql, self.dataset_id), params)

    def _run(self, sql: str, params: Params = None) -> pa.Table:
        """BigQuery SQL as it is (built here, or transpiled with its tables qualified)."""
        return bq.run_query(self.client, sql, params, self.max_bytes_billed)

    def replace_days(
        self, table: str, day_column: str, days: Sequence[date], data: pa.Table
    ) -> int:
        table, day_column = identifier(table), identifier(day_column)
        listed = ", ".join(f"DATE '{day.isoformat()}'" for day in sorted(set(days)))
        where = f"WHERE DATE({day_column}) IN ({listed})" if listed else "WHERE FALSE"
        # The same rows in DuckDB's dialect, for the days the rows deleted belonged to.
        picked = f"CAST({day_column} AS DATE) IN (SELECT unnest(CAST($days AS DATE[])))"
        return self._replace(table, where, data, (picked, {"days": sorted(set(days))}))

    def replace_all(self, table: str, data: pa.Table) -> int:
        return self._replace(identifier(table), "WHERE TRUE", data, ("TRUE", {}))

    def _replace(
        self, table: str, where: str, data: pa.Table, picked: tuple[str, dict[str, Any]]
    ) -> int:
        """In one transaction (one script): delete the rows `where` picks, insert `data` (loaded
        first into a staging table). `where` is built here from dates and checked identifiers.
        Records the days of the rows deleted and of those inserted (`picked`: the deleted rows'
        filter in DuckDB's dialect); a table without a day grain, when its rows changed.

        A partition decorator (`table$YYYYMMDD` with WRITE_TRUNCATE) would replace one day in
        one load job, but bqemulator 1.4.0 refuses it ("Invalid table id"), and a run
        replaces several days at once: the script is one atomic job on both."""
        grain = models.model(table).grain
        by_day = grain is not None and grain.kind == "day"
        changed: set[date] = set()
        if by_day:
            assert grain is not None
            old = grain.days_sql(f"(SELECT * FROM {table} WHERE {picked[0]})")
            changed |= set(self.query(old, picked[1])["day"].to_pylist())
        else:
            before = self._rows_text(table)
        with self._staged(table, data) as (stage, names):
            if by_day:
                assert grain is not None
                found = self.query_reading(
                    grain.days_sql("incoming"), {"incoming": stage.strip("`")}
                )
                changed |= set(found["day"].to_pylist())
            self._run(
                f"BEGIN TRANSACTION;\n"
                f"DELETE FROM {self._quoted(table)} {where};\n"
                f"INSERT INTO {self._quoted(table)} ({names}) SELECT {names} FROM {stage};\n"
                "COMMIT TRANSACTION;"
            )
        if by_day:
            self.record_changes(table, changed - {None})
        elif self._rows_text(table) != before:
            self.record_changes(table, None)
        return data.num_rows

    def _rows_text(self, table: str) -> list[str]:
        """A small table's rows as sorted JSON text: whether a rewrite changed it."""
        found = self._run(f"SELECT TO_JSON_STRING(t) AS row FROM {self._quoted(table)} AS t")
        return sorted(found["row"].to_pylist())

    def insert_new(self, table: str, data: pa.Table, key: str, day: str | None = None) -> int:
        table, key, on_days = identifier(table), identifier(key), same_days(data, day)
        # A key twice in `data`: the first in its order is kept, every run alike.
        ordered = data.append_column(INCOMING_ORDER, pa.array(range(data.num_rows), pa.int64()))
        before = self._count(table)
        with self._staged(table, ordered, extra=INCOMING_ORDER) as (stage, names):
            grain = models.model(table).grain
            if grain is not None and grain.kind == "day":  # the days of the rows new to it
                fresh = (
                    f"(SELECT * FROM incoming WHERE {key} NOT IN "
                    f"(SELECT {key} FROM {table} WHERE {on_days}))"
                )
                days = self.query_reading(grain.days_sql(fresh), {"incoming": stage.strip("`")})
                self.record_changes(table, set(days["day"].to_pylist()) - {None})
            else:
                self.record_changes(table, None)
            self._run(
                f"INSERT INTO {self._quoted(table)} ({names})\n"
                f"SELECT {names} FROM {stage}\n"
                f"WHERE {key} NOT IN (SELECT {key} FROM {self._quoted(table)} WHERE {on_days})\n"
                f"QUALIFY ROW_NUMBER() OVER (PARTITION BY {key} ORDER BY {INCOMING_ORDER}) = 1"
            )
        return self._count(table) - before

    def in_place(self, endpoint: str | None, location: str | None) -> InPlace | None:
        """Itself on the same endpoint (BigQuery itself, or one emulator) and, where both are
        named, the same location (a query reads tables of one location only)."""
        if (endpoint or None) != (self.endpoint or None):
            return None
        if location and self.location and location.upper() != self.location.upper():
            return None
        return self

    def table_fields(self, table: str) -> tuple[tuple[str, str, str, tuple], ...]:
        return bq.table_fields(self.client, table)  # metadata: nothing billed

    def query_native(
        self, sql: str, params: Sequence[bq.Param], max_bytes: int
    ) -> Iterator[pa.RecordBatch]:
        return bq.query_batches(self.client, sql, params, max_bytes)

    def fill_nulls(self, table: str, keys: Sequence[str], data: pa.Table, when_null: str) -> int:
        table, flag = identifier(table), identifier(when_null)
        keyed = [identifier(k) for k in keys]
        sets = ", ".join(
            f"{c} = i.{c}" for c in map(identifier, data.column_names) if c not in keyed
        )
        same = " AND ".join(f"t.{k} IS NOT DISTINCT FROM i.{k}" for k in keyed)
        unset = f"SELECT COUNT(*) AS n FROM {self._quoted(table)} WHERE {flag} IS NULL"
        before = int(self._run(unset)["n"][0].as_py())
        self.record_changes(table, None)  # once, as an upgrade fills older rows' new columns
        with self._staged(table, data) as (stage, _):
            self._run(
                f"UPDATE {self._quoted(table)} AS t SET {sets} FROM {stage} AS i\n"
                f"WHERE t.{flag} IS NULL AND {same}"
            )
        return before - int(self._run(unset)["n"][0].as_py())

    def query_reading(
        self, sql: str, sources: dict[str, str], params: Params = None, max_bytes: int | None = None
    ) -> pa.Table:
        """A DuckDB statement run here, the tables named in `sources` read from elsewhere (a
        table id, or a `SELECT * FROM table WHERE ...` whose filter joins the scan: the billing
        export read in place, warehouse/transpile.py's `_from_sources`)."""
        text = self._reading(sql, sources)
        return bq.run_query(self.client, text, params, max_bytes or self.max_bytes_billed)

    def _reading(self, sql: str, sources: dict[str, str]) -> str:
        """`sql` as BigQuery's, its `sources` read from where they are named."""
        ordered = not bq.is_emulated(self.client)  # bqemulator refuses WITH OFFSET on STRUCTs
        return to_bigquery(sql, self.dataset_id, ordered, tuple(sorted(sources.items())))

    def create_scratch(self, prefix: str) -> str:
        """A fresh table id beside the warehouse's tables (nothing created): the caller makes
        it (scratch_from_query / scratch_from_arrow: BigQuery deletes it a day later,
        bq.SCRATCH_EXPIRY, if a killed run leaves it) and drops it (drop_scratch)."""
        return self.table_id(f"{identifier(prefix)}__scratch_{uuid.uuid4().hex[:12]}")

    def scratch_from_query(
        self,
        table_id: str,
        sql: str,
        sources: dict[str, str],
        params: Params = None,
        max_bytes: int | None = None,
    ) -> None:
        """CREATE TABLE `table_id` AS a DuckDB statement (its sources as query_reading's)."""
        bq.run_query(
            self.client,
            f"CREATE TABLE `{table_id}` {bq.expiring_ddl()} AS\n{self._reading(sql, sources)}",
            params,
            max_bytes or self.max_bytes_billed,
        )

    def scratch_from_arrow(self, table_id: str, data: pa.Table) -> None:
        """A small Arrow table (strings, decimals and booleans) loaded as `table_id`."""
        kinds = []
        for column in data.schema:
            if pa.types.is_decimal(column.type):
                kinds.append(Column(column.name, "NUMERIC", "NULLABLE"))
            elif pa.types.is_string(column.type):
                kinds.append(Column(column.name, "STRING", "NULLABLE"))
            elif pa.types.is_boolean(column.type):
                kinds.append(Column(column.name, "BOOL", "NULLABLE"))
            else:
                raise ValueError(f"{column.name}: {column.type} is not a scratch column type")
        bq.load_scratch(self.client, table_id, data, kinds)

    def drop_scratch(self, table_id: str) -> None:
        bq.drop_table(self.client, table_id)

    def _count(self, table: str) -> int:
        return int(self._run(f"SELECT COUNT(*) AS n FROM {self._quoted(table)}")["n"][0].as_py())

    def _staged(self, table: str, data: pa.Table, extra: str | None = None) -> _Stage:
        return _Stage(self, table, data, extra)

    def build_mart(self, name: str) -> int:
        mart = models.model(name)
        have = bq.table_layout(self.client, self.table_id(name))
        if have is not None and have != mart_layout_spec(name):
            # BigQuery refuses CREATE OR REPLACE of a table partitioned otherwise ("Cannot
            # replace a table with a different partitioning spec"): a mart an earlier version
            # built unpartitioned, or whose MART_LAYOUT changed, is dropped first (once).
            bq.drop_table(self.client, self.table_id(name))
        self._run(
            f"CREATE OR REPLACE TABLE {self._quoted(name)}{mart_layout(name)} AS\n"
            + to_bigquery(mart.sql, self.dataset_id)
        )
        bq.describe_table(
            self.client, self.table_id(name), mart.table_comment, mart.column_comments
        )
        self.record_changes(name, None)
        return self._count(name)

    def build_window(self, name: str, lo: date, hi: date, runs: Sequence[str] | None = None) -> int:
        """One script: the window's rows deleted and rebuilt (DELETE + INSERT in a transaction:
        bqemulator refuses partition decorators, and MERGE ... ON FALSE over nested columns;
        a window may span several partitions). Both statements filter the model's partition
        column, and its SQL reads every grained table through that table's own filter, so
        the bytes a daily run reads follow the window, not the history. Records every day of
        the window as changed."""
        mart = models.model(name)
        grain = mart.grain
        if grain is None:
            raise ValueError(f"{name} has no grain: it is built whole")
        reads: dict[str, Grain] = {}
        for table in mart.depends_on:
            try:
                found = models.model(table).grain
            except KeyError:
                continue
            if found is not None:
                reads[table] = found
        narrow = tuple(
            sorted(
                (t, g.filter())
                for t, g in reads.items()
                if not g.read_whole and g.kind != "run" and t not in grain.onward
            )
        )
        select = without_comments(mart.sql)
        keep = grain.filter(runs_from=RUNS)
        gone = keep
        if grain.kind == "run":
            gone = f"({keep} OR {grain.start} NOT IN (SELECT run_id FROM jobs))"

        def bound(sql: str) -> str:
            # The window's days as DATE literals (dates, never text from input): bqemulator
            # binds no parameters in a script.
            sql = sql.replace(f"${LO}", f"DATE '{lo.isoformat()}'")
            return sql.replace(f"${HI}", f"DATE '{hi.isoformat()}'")

        sources: dict[str, str] = {}
        if grain.kind == "run":  # the runs as a scratch table (run ids are text from input)
            sources[RUNS] = self.create_scratch(RUNS)
            self.scratch_from_arrow(
                sources[RUNS], pa.table({"run_id": pa.array(list(runs or ()), pa.string())})
            )
        try:
            delete = self._reading(bound(f"DELETE FROM {identifier(name)} WHERE {gone}"), sources)
            insert = to_bigquery(
                bound(
                    f"INSERT INTO {identifier(name)} SELECT * FROM (\n{select}\n) AS built "
                    f"WHERE {keep}"
                ),
                self.dataset_id,
                not bq.is_emulated(self.client),
                tuple(sorted(sources.items())),
                tuple((t, bound(f)) for t, f in narrow),
            )
            self._run(f"BEGIN TRANSACTION;\n{delete};\n{insert};\nCOMMIT TRANSACTION;")
            counted = self._reading(
                bound(f"SELECT count(*) AS n FROM {identifier(name)} WHERE {keep}"), sources
            )
            written = int(self._run(counted)["n"][0].as_py())
        finally:
            if RUNS in sources:
                self.drop_scratch(sources[RUNS])
        self.record_changes(name, [lo + timedelta(days=n) for n in range((hi - lo).days)])
        return written

    def has_table(self, name: str) -> bool:
        return bq.table_exists(self.client, self.table_id(name))

    def record_changes(self, table: str, days: Iterable[date] | None) -> None:
        """Record that `table`'s rows of `days` changed (None: the table as a whole); DuckDB
        records its own inside each write's transaction (warehouse/duckdb.py)."""
        if days is None:
            self.execute(models.query_sql("bookkeeping_record_whole"), {"table_name": table})
            return
        listed = sorted(set(days))
        if listed:
            self.execute(
                models.query_sql("bookkeeping_record_days"), {"table_name": table, "days": listed}
            )

    def read_query(self, sql: str, params: Params = None) -> pa.Table:
        """Through the reader (read-only, published runs only), as DuckDB's: BigQuery has no
        snapshot to read, the dataset's tables are each replaced atomically."""
        reader = self.reader()
        try:
            return reader.query(sql, params)
        finally:
            reader.close()

    @contextmanager
    def read_bounded(self, sql: str, bounds: Bounds) -> Iterator[Rows]:
        """Through a reader of its own, as read_query (warehouse/bigquery_reader.py: `stream`)."""
        from flopledger.warehouse.bigquery_reader import BigQueryReader

        reader = BigQueryReader(self)
        try:
            with reader.stream(sql, bounds) as rows:
                yield rows
        finally:
            reader.close()

    def reader(self) -> Reader:
        from flopledger.warehouse.bigquery_reader import BigQueryReader  # the read side (issue 17)

        return BigQueryReader(self)

    def publish_snapshot(self) -> Published:
        """Nothing to copy: BigQuery readers query the dataset itself, and every table is
        replaced by one atomic job, so a reader never sees half a table. The run is recorded
        (the marker table readers key their caches on, warehouse/bigquery_reader.py)."""
        from flopledger.warehouse.bigquery_reader import mark_published

        return Published(mark_published(self), "marker")

    def catalogue(self, intermediate: bool = False) -> list[TableInfo]:
        dataset = self.intermediate_dataset_id if intermediate else self.dataset_id
        return [
            TableInfo(
                t.name,
                t.description,
                tuple(ColumnInfo(t.name, c, kind, text) for c, kind, text in t.columns),
            )
            for t in bq.dataset_tables(self.client, dataset)
        ]


def mart_layout(name: str) -> str:
    """The PARTITION BY / CLUSTER BY clauses of a mart's CREATE TABLE (MART_LAYOUT), or ''."""
    if name not in MART_LAYOUT:
        return ""
    partition, cluster = MART_LAYOUT[name]
    keys = f"\nCLUSTER BY {', '.join(identifier(c) for c in cluster)}" if cluster else ""
    return f"\nPARTITION BY {partition}{keys}"


def mart_layout_spec(name: str) -> tuple[str | None, str | None, tuple[str, ...]]:
    """A mart's (partition column, unit, clustering) as BigQuery records MART_LAYOUT's clauses
    (clients.bigquery.table_layout's form): DATE(hour) is hour by DAY, DATE_TRUNC(month, MONTH)
    month by MONTH, a DATE column itself by DAY."""
    if name not in MART_LAYOUT:
        return None, None, ()
    partition, cluster = MART_LAYOUT[name]
    unit = "MONTH" if partition.startswith("DATE_TRUNC(") else "DAY"
    column = partition.removeprefix("DATE_TRUNC(").removeprefix("DATE(").split(",")[0]
    return column.rstrip(")"), unit, tuple(cluster)


def _json_maps(data: pa.Table) -> pa.Table:
    """MAP columns as JSON objects: how the BigQuery warehouse keeps a map. The text is
    Arrow's JSON type, which Parquet writes with its JSON logical type, so BigQuery's Parquet
    load reads it as JSON into the JSON column (a model's `labels['team']` is a JSON subscript,
    which a STRING column refuses)."""
    for index, column in enumerate(data.schema):
        if pa.types.is_map(column.type):
            text = [
                None if row is None else json.dumps(dict(row), separators=(",", ":"))
                for row in data.column(index).to_pylist()
            ]
            data = data.set_column(index, column.name, pa.array(text, pa.json_()))
        elif pa.types.is_timestamp(column.type) and column.type.tz is None:
            utc = pc.assume_timezone(data.column(index), "UTC")
            data = data.set_column(index, column.name, utc)
    return data


class _Stage:
    """`data` loaded into a staging table beside `table` (same column types), dropped after;
    it expires a day after it is made (bq.SCRATCH_EXPIRY), should a killed run leave it."""

    def __init__(
        self, warehouse: BigQueryWarehouse, table: str, data: pa.Table, extra: str | None
    ) -> None:
        self.warehouse, self.table, self.extra = warehouse, table, extra
        self.data = _json_maps(data)
        self.name = f"{table}__incoming_{uuid.uuid4().hex[:12]}"

    def _columns(self) -> list[Column]:
        declared = {c.name: c for c in columns(models.model(self.table))}
        out = []
        for name in self.data.column_names:
            if name == self.extra:
                out.append(Column(name, "INT64", "NULLABLE"))
            elif name not in declared:
                raise ValueError(f"{self.table}: no column {name}")
            else:
                out.append(declared[name])
        return out

    def __enter__(self) -> tuple[str, str]:
        w = self.warehouse
        try:
            bq.load_scratch(w.client, w.table_id(self.name), self.data, self._columns())
        except bq.BigQueryError:
            bq.drop_table(w.client, w.table_id(self.name))  # a failed load leaves no stage
            raise
        names = ", ".join(identifier(n) for n in self.data.column_names if n != self.extra)
        return w._quoted(self.name), names

    def __exit__(self, *exc: object) -> None:
        bq.drop_table(self.warehouse.client, self.warehouse.table_id(self.name))
