"""The embedded default: one DuckDB file.

A connection is opened per operation and closed at once, so that the file's single
writer lock is held only while work is done; `held()` keeps the file open across the
operations of one piece of work that goes from start to end (a `flopledger run`). Every
connection runs in UTC.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import closing, contextmanager
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa

import duckdb
from flopledger import models
from flopledger.models.grain import HI, LO, RUNS, Grain, narrowed, whole_months
from flopledger.models.lineage import tables_written
from flopledger.models.sql_text import named_params, without_comments
from flopledger.warehouse import duckdb_migrations, duckdb_snapshot
from flopledger.warehouse.base import (
    ColumnInfo,
    InPlace,
    Params,
    Plan,
    Published,
    Reader,
    TableInfo,
    Warehouse,
    identifier,
    same_days,
)
from flopledger.warehouse.bounds import Bounds, Rows
from flopledger.warehouse.duckdb_lock import as_locked
from flopledger.warehouse.duckdb_reader import SnapshotReader
from flopledger.warehouse.duckdb_snapshot import ANY_TABLE

# insert_new's ordinal of each incoming row: which of two rows with one key is kept.
INCOMING_ORDER = "__flopledger_incoming_order"


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def connect(path: str | Path, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection in UTC: the one place that opens the warehouse file.

    Raises WarehouseLocked (naming the holder's PID) when another process writes it."""
    try:
        con = duckdb.connect(str(path), read_only=read_only)
    except duckdb.IOException as exc:
        locked = as_locked(exc, path)
        if locked is None:
            raise
        raise locked from None
    con.execute("SET TimeZone = 'UTC'")
    use_layers(con)
    return con


def _checksum(con: duckdb.DuckDBPyConnection, table: str) -> tuple[int, int]:
    """(rows, sum of row hashes) of a table: whether a rewrite changed it."""
    found = con.execute(
        f"SELECT count(*), coalesce(sum(hash(t)::HUGEINT), 0) FROM {table} AS t"
    ).fetchone()
    return (int(found[0]), int(found[1])) if found else (0, 0)


# Columns a write stamps from the wall clock: a row rewritten with only these new is unchanged.
WALL_CLOCK_COLUMNS = frozenset(
    {"ingested_at", "loaded_at", "raised_at", "notified_at", "quarantined_at", "built_at"}
    | {"recorded_at"}  # settings_history, restatements, closed_month_changes: the run's clock
)


def _stable_columns(con: duckdb.DuckDBPyConnection, temp_table: str) -> str:
    names = [
        row[0]
        for row in con.execute(
            "SELECT column_name FROM duckdb_columns() WHERE database_name = 'temp' "
            "AND table_name = ? ORDER BY column_index",
            [temp_table],
        ).fetchall()
    ]
    return ", ".join(identifier(n) for n in names if n not in WALL_CLOCK_COLUMNS)


def _grain(table: str) -> Grain | None:
    try:
        return models.model(table).grain
    except KeyError:
        return None


def _record(
    con: duckdb.DuckDBPyConnection, table: str, days_sql: str | None, params: Any = None
) -> None:
    """Record a change of `table` (bookkeeping.changes): the days `days_sql` selects (a
    `SELECT day`), or with None the table as a whole."""
    seq = int(con.execute(models.query_sql("bookkeeping_seq")).fetchone()[0]) + 1  # type: ignore[index]
    name = _literal(identifier(table))
    if days_sql is None:
        con.execute(
            f"INSERT INTO bookkeeping.changes VALUES ({seq}, {name}, NULL, now()::TIMESTAMP)"
        )
    else:
        con.execute(
            f"INSERT INTO bookkeeping.changes SELECT {seq}, {name}, day, now()::TIMESTAMP "
            f"FROM ({days_sql}) WHERE day IS NOT NULL",
            params,
        )


def _record_rows(con: duckdb.DuckDBPyConnection, table: str, rows: str, params: Any = None) -> None:
    """Record the days the rows of `rows` (a table or a parenthesised SELECT) belong to; a
    table without a day grain changes whole."""
    grain = _grain(table)
    if grain is not None and grain.kind == "day":
        _record(con, table, grain.days_sql(rows), params)
    else:
        _record(con, table, None)


def _keeps_books(con: duckdb.DuckDBPyConnection) -> bool:
    found = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() "
        "AND schema_name = ? AND table_name = 'changes'",
        [models.BOOKKEEPING_SCHEMA],
    ).fetchone()
    return bool(found and found[0])


def use_layers(con: duckdb.DuckDBPyConnection) -> None:
    """Unqualified names find the intermediate tables and the bookkeeping's too (models name
    them so: `settings_history`), once the warehouse has those schemas."""
    layers = (models.INTERMEDIATE_SCHEMA, models.BOOKKEEPING_SCHEMA)
    found = {
        row[0]
        for row in con.execute(
            "SELECT schema_name FROM duckdb_schemas() "
            "WHERE database_name = current_database() AND list_contains(?, schema_name)",
            [list(layers)],
        ).fetchall()
    }
    if found:
        path = ",".join(["main", *(s for s in layers if s in found)])
        con.execute(f"SET search_path = '{path}'")


def _moved_to_bookkeeping(con: duckdb.DuckDBPyConnection, table: str) -> None:
    """A warehouse made before `settings_history` and `restatements` were the bookkeeping's
    holds them in main: their rows move to the bookkeeping schema once, in one transaction
    (the settings history is what keeps closed months from moving: never left behind)."""
    found = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() "
        "AND schema_name = 'main' AND table_name = ?",
        [table],
    ).fetchone()
    if not found or not found[0]:
        return
    name = identifier(table)
    con.execute("BEGIN")
    con.execute(f"INSERT INTO {models.BOOKKEEPING_SCHEMA}.{name} BY NAME SELECT * FROM main.{name}")
    con.execute(f"DROP TABLE main.{name}")
    con.execute("COMMIT")


def _days_between(lo: date, hi: date) -> list[date]:
    return [lo + timedelta(days=n) for n in range((hi - lo).days)]


class DuckDBWarehouse(Warehouse):
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._bookkept = False  # the bookkeeping tables made (the first connection makes them)

    def where(self) -> str:
        return str(self.path)

    @property
    def snapshot_path(self) -> Path:
        return self.path.with_name(self.path.stem + ".snapshot" + self.path.suffix)

    @contextmanager
    def _connect(self) -> Iterator[duckdb.DuckDBPyConnection]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        con = connect(self.path)
        try:
            if not self._bookkept:
                self._ensure_bookkeeping(con)
            yield con
        finally:
            con.close()

    def exists(self) -> bool:
        return self.path.exists()

    @contextmanager
    def held(self) -> Iterator[None]:
        """The file open in this process while the block runs, its write lock held throughout:
        each operation's connection then joins the database DuckDB has open instead of
        starting it (reading its catalog, starting its threads) and checkpointing it at close,
        some 20 ms of CPU a time, a hundred times a run (a third of a small run's CPU)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(connect(self.path)):
            yield

    def upgrade_plan(self) -> Plan | None:
        """What ensure_schema would change (read-only; WarehouseLocked while a run writes)."""
        if not self.path.exists():
            return Plan()
        with closing(connect(self.path, read_only=True)) as con:
            return duckdb_migrations.plan(con)

    def ensure_schema(self) -> None:
        with self._connect() as con:
            con.execute(f"CREATE SCHEMA IF NOT EXISTS {models.INTERMEDIATE_SCHEMA}")
            con.execute(f"CREATE SCHEMA IF NOT EXISTS {models.BOOKKEEPING_SCHEMA}")
            use_layers(con)
            con.execute(models.functions_sql())
            # Explicit changes first, on the tables as an older version left them.
            duckdb_migrations.migrate(con, lambda c, table: _record(c, table, None))
            for table in models.raw_tables():
                con.execute(table.sql)
                self._add_new_columns(con, table)
                self._comment(con, table)
            self._ensure_bookkeeping(con)
            for name in models.MOVED_TO_BOOKKEEPING:
                _moved_to_bookkeeping(con, name)
            for table in models.bookkeeping_tables():
                self._comment(con, table)

    def _ensure_bookkeeping(self, con: duckdb.DuckDBPyConnection) -> None:
        """The bookkeeping schema and tables every write records its changes in: made by the
        first connection of this object, so a write never meets a file without them."""
        con.execute(f"CREATE SCHEMA IF NOT EXISTS {models.BOOKKEEPING_SCHEMA}")
        con.execute(f"SET schema = '{models.BOOKKEEPING_SCHEMA}'")
        try:
            for table in models.bookkeeping_tables():
                con.execute(table.sql)
        finally:
            con.execute("RESET schema")
            use_layers(con)
        self._bookkept = True

    def _add_new_columns(self, con: duckdb.DuckDBPyConnection, model: models.Model) -> None:
        """A raw table made by an older DDL gains the columns its DDL has added since (as
        nulls in the rows already there; e.g. gpu_samples' pod columns, spool schema 2).
        Every column of a raw DDL has its comment, so a table holding every commented column
        is up to date and costs one catalog query."""
        have = {
            row[0]
            for row in con.execute(
                "SELECT column_name FROM duckdb_columns() "
                "WHERE schema_name = 'main' AND table_name = ?",
                [model.name],
            ).fetchall()
        }
        if set(model.column_comments) <= have:
            return
        con.execute("CREATE SCHEMA IF NOT EXISTS flopledger_ddl")
        try:
            con.execute("SET schema = 'flopledger_ddl'")  # the DDL's table, made afresh there
            con.execute(model.sql)
        finally:
            con.execute("RESET schema")
            use_layers(con)
        missing = con.execute(
            """SELECT d.column_name, d.data_type, d.is_nullable
            FROM duckdb_columns() d
            WHERE d.schema_name = 'flopledger_ddl' AND d.table_name = $1
              AND d.column_name NOT IN (SELECT column_name FROM duckdb_columns()
                                        WHERE schema_name = 'main' AND table_name = $1)
            ORDER BY d.column_index""",
            [model.name],
        ).fetchall()
        con.execute("DROP SCHEMA flopledger_ddl CASCADE")
        for column, data_type, nullable in missing:
            if not nullable:
                raise ValueError(
                    f"{model.name}: new column {column} is NOT NULL; rows already loaded "
                    "have no value for it (rebuild the warehouse, or make it nullable)"
                )
            con.execute(
                f"ALTER TABLE {identifier(model.name)} ADD COLUMN {identifier(column)} {data_type}"
            )

    def _comment(self, con: duckdb.DuckDBPyConnection, model: models.Model) -> None:
        """The model's table and column comments, each written only where the table does not
        hold it already: ensure_schema, three times a run, meets raw tables that earlier runs
        have commented (393 statements each time, and a catalog rewrite at close, for nothing)."""
        table = f"{model.schema}.{identifier(model.name)}"
        found = con.execute(
            "SELECT coalesce(comment, '') FROM duckdb_tables() WHERE schema_name = ? "
            "AND table_name = ?",
            [model.schema, model.name],
        ).fetchall()
        if not found or found[0][0] != model.table_comment:
            con.execute(f"COMMENT ON TABLE {table} IS {_literal(model.table_comment)}")
        existing = dict(
            con.execute(
                "SELECT column_name, coalesce(comment, '') FROM duckdb_columns() "
                "WHERE schema_name = ? AND table_name = ?",
                [model.schema, model.name],
            ).fetchall()
        )
        for column, text in model.column_comments.items():
            if column in existing and existing[column] != text:
                con.execute(f"COMMENT ON COLUMN {table}.{column} IS {_literal(text)}")

    def query(self, sql: str, params: Params = None) -> pa.Table:
        with self._connect() as con:
            return con.sql(sql, params=params).to_arrow_table()

    def execute(self, sql: str, params: Params = None) -> None:
        """Run one statement; then, where the warehouse keeps its bookkeeping, record the tables
        the statement may have changed, each as a whole (models/lineage.py's tables_written;
        ANY_TABLE when that cannot be told), so that a publish of changes takes them in
        (warehouse/duckdb_snapshot.py): an alert's delivery state is written so."""
        with self._connect() as con:
            con.execute(sql, params)
            if _keeps_books(con):
                written = tables_written(sql)
                if written is not None:  # the bookkeeping's own writes are not changes
                    written = written - {t.name for t in models.bookkeeping_tables()}
                for table in sorted(written) if written is not None else [ANY_TABLE]:
                    con.execute(models.query_sql("bookkeeping_record_whole"), {"table_name": table})

    def replace_days(
        self, table: str, day_column: str, days: Sequence[date], data: pa.Table
    ) -> int:
        table, day_column = identifier(table), identifier(day_column)
        day = f"CAST({day_column} AS DATE)"
        # The range first: DuckDB skips the row groups outside it by their min and max (an IN
        # list alone is tested on every row, so a day's replace would read all history).
        where = f"WHERE {day} >= ? AND {day} <= ? AND {day} IN (SELECT unnest(?))"
        listed = sorted(set(days))
        bounds = [listed[0], listed[-1]] if listed else [None, None]
        return self._replace(table, where, [*bounds, listed], data)

    def replace_all(self, table: str, data: pa.Table) -> int:
        return self._replace(identifier(table), "", None, data)

    def _replace(self, table: str, where: str, params: Params, data: pa.Table) -> int:
        """In one transaction: delete the rows `where` picks (every row if empty), insert `data`,
        and record what changed: the days of the rows deleted and inserted (a table without a
        day grain: the table, when its rows are not what they were).
        `table` and `where` are built here from checked identifiers, never taken from callers."""
        grain = _grain(table)
        by_day = grain is not None and grain.kind == "day"
        if by_day and grain is not None and grain.end is None:  # rows on one day each
            return self._replace_points(table, grain.start, where, params, data)
        with self._connect() as con:
            con.execute("BEGIN")
            con.register("incoming", data)
            if by_day:  # the rows as they were, to record only the days whose rows differ
                con.execute(
                    f"CREATE TEMP TABLE before_rows AS SELECT * FROM {table} {where}", params
                )
            else:
                before = _checksum(con, table)
            con.execute(f"DELETE FROM {table} {where}", params)
            con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM incoming")
            if by_day:
                con.execute(
                    f"CREATE TEMP TABLE after_rows AS SELECT * FROM {table} {where}", params
                )
                kept = _stable_columns(con, "before_rows")
                _record_rows(
                    con,
                    table,
                    f"((SELECT {kept} FROM temp.before_rows EXCEPT ALL SELECT {kept} FROM temp.after_rows)"
                    f" UNION ALL (SELECT {kept} FROM temp.after_rows EXCEPT ALL SELECT {kept} FROM temp.before_rows))",
                )
                con.execute("DROP TABLE temp.before_rows")
                con.execute("DROP TABLE temp.after_rows")
            elif _checksum(con, table) != before:
                _record(con, table, None)
            con.execute("COMMIT")
        return data.num_rows

    def _replace_points(
        self, table: str, start: str, where: str, params: Params, data: pa.Table
    ) -> int:
        """_replace for a table whose rows each fall on one day (samples, requests): each day's
        rows summed as (count, sum of row hashes, the wall-clock stamps left out) before and
        after, and the days whose sums differ recorded. Two scans of the days replaced, where
        copying them aside to compare row by row costs four and two copies."""
        with self._connect() as con:
            con.execute("BEGIN")
            con.register("incoming", data)
            kept = ", ".join(
                identifier(row[0])
                for row in con.execute(f"DESCRIBE {table}").fetchall()
                if row[0] not in WALL_CLOCK_COLUMNS
            )
            sums = (
                f"SELECT CAST({start} AS DATE) AS day, count(*) AS n, "
                f"sum(hash({kept})::HUGEINT) AS h FROM {table} {where} GROUP BY 1"
            )
            before = {row[0]: row[1:] for row in con.execute(sums, params).fetchall()}
            con.execute(f"DELETE FROM {table} {where}", params)
            con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM incoming")
            after = {row[0]: row[1:] for row in con.execute(sums, params).fetchall()}
            changed = sorted(
                d
                for d in before.keys() | after.keys()
                if d is not None and before.get(d) != after.get(d)
            )
            if changed:
                _record(con, table, "SELECT unnest(CAST(? AS DATE[])) AS day", [changed])
            con.execute("COMMIT")
        return data.num_rows

    def insert_new(self, table: str, data: pa.Table, key: str, day: str | None = None) -> int:
        table, key, days = identifier(table), identifier(key), same_days(data, day)
        # A key twice in `data`: the first in its order (files in name order, lines in order)
        # is kept, every run alike; the ordinal column is never stored.
        ordered = data.append_column(INCOMING_ORDER, pa.array(range(data.num_rows), pa.int64()))
        with self._connect() as con:
            con.register("incoming", ordered)
            con.execute("BEGIN")
            con.execute(
                f"""CREATE TEMP TABLE fresh AS
                SELECT * EXCLUDE ({INCOMING_ORDER}) FROM incoming
                WHERE {key} NOT IN (SELECT {key} FROM {table} WHERE {days})
                QUALIFY row_number() OVER (PARTITION BY {key} ORDER BY {INCOMING_ORDER}) = 1"""
            )
            added = int(con.execute("SELECT count(*) FROM fresh").fetchone()[0])  # type: ignore[index]
            if added:
                con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM fresh")
                _record_rows(con, table, "temp.fresh")
            con.execute("DROP TABLE temp.fresh")
            con.execute("COMMIT")
        return added

    def fill_nulls(self, table: str, keys: Sequence[str], data: pa.Table, when_null: str) -> int:
        table, flag = identifier(table), identifier(when_null)
        keyed = [identifier(k) for k in keys]
        sets = ", ".join(
            f"{c} = i.{c}" for c in map(identifier, data.column_names) if c not in keyed
        )
        same = " AND ".join(f"t.{k} IS NOT DISTINCT FROM i.{k}" for k in keyed)
        with self._connect() as con:
            con.register("incoming", data)
            con.execute("BEGIN")
            _record_rows(
                con,
                table,
                f"(SELECT t.* FROM {table} AS t JOIN incoming AS i ON {same} WHERE t.{flag} IS NULL)",
            )
            found = con.execute(
                f"UPDATE {table} AS t SET {sets} FROM incoming AS i WHERE t.{flag} IS NULL AND {same}"
            ).fetchone()
            con.execute("COMMIT")
        return int(found[0]) if found else 0

    def build_mart(self, name: str) -> int:
        mart = models.model(name)
        table = f"{mart.schema}.{identifier(name)}"
        with self._connect() as con:
            if mart.schema != "main":
                # A warehouse built before the layers had its own schema keeps a copy in main,
                # which unqualified names would find first: it goes.
                con.execute(f"DROP TABLE IF EXISTS main.{identifier(name)}")
            con.execute("BEGIN")
            had = self._has(con, mart)
            before = _checksum(con, table) if had else None
            con.execute(f"CREATE OR REPLACE TABLE {table} AS\n{mart.sql}")
            self._comment(con, mart)
            after = _checksum(con, table)
            if after != before:
                _record(con, name, None)
            con.execute("COMMIT")
            return after[0]

    def build_window(self, name: str, lo: date, hi: date, runs: Sequence[str] | None = None) -> int:
        mart = models.model(name)
        grain = mart.grain
        if grain is None:
            raise ValueError(f"{name} has no grain: it is built whole")
        table = f"{mart.schema}.{identifier(name)}"
        reads = {t: g for t in mart.depends_on if (g := _grain(t)) is not None}
        select = narrowed(without_comments(mart.sql), reads, grain.onward)
        keep = grain.filter()
        gone = keep
        if grain.kind == "run":  # and rows of runs no longer in jobs
            gone = f"({keep} OR {grain.start} NOT IN (SELECT run_id FROM jobs))"
        values = {LO: lo, HI: hi, RUNS: list(runs or ())}
        insert = f"INSERT INTO {table} SELECT * FROM (\n{select}\n) AS built WHERE {keep}"
        delete = f"DELETE FROM {table} WHERE {gone}"
        by_day = (
            f"SELECT CAST({grain.start} AS DATE) AS day, count(*) AS n, "
            f"sum(hash(t)::HUGEINT) AS h FROM {table} AS t WHERE {keep} GROUP BY 1"
        )

        def bound(sql: str) -> dict[str, object]:
            return {k: v for k, v in values.items() if k in named_params(sql)}

        with self._connect() as con:
            con.execute("BEGIN")
            before = (
                set() if grain.kind == "run" else set(con.execute(by_day, bound(by_day)).fetchall())
            )
            con.execute(delete, bound(delete))
            con.execute(insert, bound(insert))
            counted = con.execute(f"SELECT count(*) FROM {table} WHERE {keep}", bound(keep))
            written = int(counted.fetchone()[0])  # type: ignore[index]
            if grain.kind == "run":
                changed = _days_between(lo, hi)
            else:
                after = set(con.execute(by_day, bound(by_day)).fetchall())
                changed = sorted({row[0] for row in before ^ after})
                if grain.kind == "month":
                    changed = list(whole_months(changed))
            if changed:
                con.execute("CREATE OR REPLACE TEMP TABLE changed_days (day DATE)")
                con.executemany("INSERT INTO temp.changed_days VALUES (?)", [[d] for d in changed])
                _record(con, name, "SELECT day FROM temp.changed_days")
                con.execute("DROP TABLE temp.changed_days")
            con.execute("COMMIT")
        return written

    def has_table(self, name: str) -> bool:
        with self._connect() as con:
            return self._has(con, models.model(name))

    def _has(self, con: duckdb.DuckDBPyConnection, model: models.Model) -> bool:
        found = con.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE schema_name = ? AND table_name = ?",
            [model.schema, model.name],
        ).fetchone()
        return bool(found and found[0])

    def record_changes(self, table: str, days: Iterable[date] | None) -> None:
        with self._connect() as con:
            if days is None:
                _record(con, table, None)
                return
            listed = sorted(set(days))
            if listed:
                _record(con, table, "SELECT unnest(CAST($days AS DATE[])) AS day", {"days": listed})

    def read_query(self, sql: str, params: Params = None) -> pa.Table:
        reader = self.reader()
        try:
            return reader.query(sql, params)
        finally:
            reader.close()

    @contextmanager
    def read_bounded(self, sql: str, bounds: Bounds) -> Iterator[Rows]:
        """A reader of its own: DuckDB's memory limit is its database's, so the snapshot is
        attached in a database made with the query's limit."""
        reader = SnapshotReader(self.snapshot_path, self.path, bounds.memory_limit)
        try:
            with reader.stream(sql, bounds) as rows:
                yield rows
        finally:
            reader.close()

    def reader(self) -> Reader:
        return SnapshotReader(self.snapshot_path, self.path)

    def publish_snapshot(self) -> Published:
        """Bring the published snapshot to what the live file holds now, writing what changed
        since the file it is about to become was last published (or, where that could be wrong
        or cost more, a whole copy): warehouse/duckdb_snapshot.py says how and when.

        The live file's write lock is held throughout, so no writer slips in and two publishes
        never interleave; the published name is swapped atomically, so a reader never sees half
        a publish, and one that has the old file open keeps reading it."""
        with self._connect() as con:
            return duckdb_snapshot.publish(con, self.path, self.snapshot_path)

    def in_place(self, endpoint: str | None, location: str | None) -> InPlace | None:
        """Never: a DuckDB file reads no BigQuery table where it lies (its rows are read out)."""
        return None

    def catalogue(self, intermediate: bool = False) -> list[TableInfo]:
        # The published snapshot when there is one (no lock); else the live file, which a
        # fresh warehouse has only (ensure_schema without a run).
        read = self.read_query if self.snapshot_path.exists() else self.query
        schema = {"schema": models.INTERMEDIATE_SCHEMA if intermediate else "main"}
        tables = read(
            "SELECT table_name, coalesce(comment, '') AS comment FROM duckdb_tables() "
            "WHERE NOT internal AND schema_name = $schema ORDER BY table_name",
            schema,
        ).to_pylist()
        columns = read(
            "SELECT table_name, column_name, data_type, coalesce(comment, '') AS comment "
            "FROM duckdb_columns() WHERE schema_name = $schema ORDER BY table_name, column_index",
            schema,
        ).to_pylist()
        return [
            TableInfo(
                t["table_name"],
                t["comment"],
                tuple(
                    ColumnInfo(c["table_name"], c["column_name"], c["data_type"], c["comment"])
                    for c in columns
                    if c["table_name"] == t["table_name"]
                ),
            )
            for t in tables
        ]
