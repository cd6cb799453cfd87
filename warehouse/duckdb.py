"""The embedded default: one DuckDB file.

A connection is opened per operation and closed at once, so that the file's single
writer lock is held only while work is done. Every connection runs in UTC.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import date
from pathlib import Path

import pyarrow as pa

import duckdb
from flopledger import models
from flopledger.warehouse.base import (
    ColumnInfo,
    Params,
    Reader,
    TableInfo,
    Warehouse,
    identifier,
)
from flopledger.warehouse.duckdb_lock import as_locked
from flopledger.warehouse.duckdb_reader import SnapshotReader

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


def use_layers(con: duckdb.DuckDBPyConnection, catalog: str | None = None) -> None:
    """Unqualified names find the intermediate tables too (models name them so), once the
    warehouse has that schema; `catalog` names an ATTACHed file instead of the default."""
    where = "" if catalog is None else f"AND database_name = {_literal(catalog)}"
    found = con.execute(
        f"SELECT count(*) FROM duckdb_schemas() WHERE schema_name = ? {where}",
        [models.INTERMEDIATE_SCHEMA],
    ).fetchone()
    if found and found[0]:
        prefix = "" if catalog is None else f"{identifier(catalog)}."
        path = f"{prefix}main,{prefix}{models.INTERMEDIATE_SCHEMA}"
        con.execute(f"SET search_path = {_literal(path)}")


class DuckDBWarehouse(Warehouse):
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

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
            yield con
        finally:
            con.close()

    def exists(self) -> bool:
        return self.path.exists()

    def ensure_schema(self) -> None:
        with self._connect() as con:
            con.execute(f"CREATE SCHEMA IF NOT EXISTS {models.INTERMEDIATE_SCHEMA}")
            use_layers(con)
            con.execute(models.functions_sql())
            for table in models.raw_tables():
                con.execute(table.sql)
                self._add_new_columns(con, table)
                self._comment(con, table)

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
        table = f"{model.schema}.{identifier(model.name)}"
        con.execute(f"COMMENT ON TABLE {table} IS {_literal(model.table_comment)}")
        existing = {
            row[0]
            for row in con.execute(
                "SELECT column_name FROM duckdb_columns() WHERE schema_name = ? AND table_name = ?",
                [model.schema, model.name],
            ).fetchall()
        }
        for column, text in model.column_comments.items():
            if column in existing:
                con.execute(f"COMMENT ON COLUMN {table}.{column} IS {_literal(text)}")

    def query(self, sql: str, params: Params = None) -> pa.Table:
        with self._connect() as con:
            return con.sql(sql, params=params).to_arrow_table()

    def execute(self, sql: str, params: Params = None) -> None:
        with self._connect() as con:
            con.execute(sql, params)

    def replace_days(
        self, table: str, day_column: str, days: Sequence[date], data: pa.Table
    ) -> int:
        table, day_column = identifier(table), identifier(day_column)
        where = f"WHERE CAST({day_column} AS DATE) IN (SELECT unnest(?))"
        return self._replace(table, where, [list(days)], data)

    def replace_all(self, table: str, data: pa.Table) -> int:
        return self._replace(identifier(table), "", None, data)

    def _replace(self, table: str, where: str, params: Params, data: pa.Table) -> int:
        """In one transaction: delete the rows `where` picks (every row if empty), insert `data`.
        `table` and `where` are built here from checked identifiers, never taken from callers."""
        with self._connect() as con:
            con.execute("BEGIN")
            con.execute(f"DELETE FROM {table} {where}", params)
            con.register("incoming", data)
            con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM incoming")
            con.execute("COMMIT")
        return data.num_rows

    def insert_new(self, table: str, data: pa.Table, key: str) -> int:
        table, key = identifier(table), identifier(key)
        # A key twice in `data`: the first in its order (files in name order, lines in order)
        # is kept, every run alike; the ordinal column is never stored.
        ordered = data.append_column(INCOMING_ORDER, pa.array(range(data.num_rows), pa.int64()))
        with self._connect() as con:
            con.register("incoming", ordered)
            before = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # type: ignore[index]
            con.execute(
                f"""INSERT INTO {table} BY NAME
                SELECT * EXCLUDE ({INCOMING_ORDER}) FROM incoming
                WHERE {key} NOT IN (SELECT {key} FROM {table})
                QUALIFY row_number() OVER (PARTITION BY {key} ORDER BY {INCOMING_ORDER}) = 1"""
            )
            after = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # type: ignore[index]
        return int(after - before)

    def build_mart(self, name: str) -> int:
        mart = models.model(name)
        table = f"{mart.schema}.{identifier(name)}"
        with self._connect() as con:
            if mart.schema != "main":
                # A warehouse built before the layers had its own schema keeps a copy in main,
                # which unqualified names would find first: it goes.
                con.execute(f"DROP TABLE IF EXISTS main.{identifier(name)}")
            con.execute(f"CREATE OR REPLACE TABLE {table} AS\n{mart.sql}")
            self._comment(con, mart)
            return int(con.execute(f"SELECT count(*) FROM {table}").fetchone()[0])  # type: ignore[index]

    def read_query(self, sql: str, params: Params = None) -> pa.Table:
        reader = self.reader()
        try:
            return reader.query(sql, params)
        finally:
            reader.close()

    def reader(self) -> Reader:
        return SnapshotReader(self.snapshot_path, self.path)

    def publish_snapshot(self) -> str:
        """Copy the checkpointed file aside while holding its write lock, then swap the copy
        in atomically (rename).

        Holding the lock while copying means no other writer can slip in between the
        checkpoint and the copy. Readers hold the old inode until they reopen, so a reader
        never sees a half copy and never blocks the writer."""
        tmp = self.snapshot_path.with_suffix(".tmp")
        with self._connect() as con:
            con.execute("CHECKPOINT")
            shutil.copyfile(self.path, tmp)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, self.snapshot_path)
        return str(self.snapshot_path)

    def catalogue(self) -> list[TableInfo]:
        # The published snapshot when there is one (no lock); else the live file, which a
        # fresh warehouse has only (ensure_schema without a run).
        read = self.read_query if self.snapshot_path.exists() else self.query
        tables = read(
            "SELECT table_name, coalesce(comment, '') AS comment FROM duckdb_tables() "
            "WHERE NOT internal AND schema_name = 'main' ORDER BY table_name"
        ).to_pylist()
        columns = read(
            "SELECT table_name, column_name, data_type, coalesce(comment, '') AS comment "
            "FROM duckdb_columns() WHERE schema_name = 'main' ORDER BY table_name, column_index"
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
