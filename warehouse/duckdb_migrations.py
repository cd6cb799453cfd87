"""A DuckDB warehouse made by an older version, brought to this one's raw tables.

Two kinds of change (models/migrations/README.md): a column a raw DDL has added since is added
by `ensure_schema` (nulls in the rows there); any other change to a column is an explicit
migration, applied here once, in name order, each in one transaction with its record in
`bookkeeping.migrations` and a change of its tables in `bookkeeping.changes` (so the snapshot
and the incremental builds take it in). A warehouse without any raw table yet is made by this
version's DDL, so it records every migration as not needed; so does one that lacks a
migration's table.

`plan` says, without writing, what an upgrade would do: the migrations not yet recorded, and
how the raw tables differ from this version's DDL (tables and columns to add; a column of
another type that no pending migration changes, which needs one).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib.metadata import PackageNotFoundError, version

import duckdb
from flopledger import models
from flopledger.warehouse.base import Plan

NOT_NEEDED_FRESH = "not needed: the warehouse was made with this version's tables"


def _version() -> str:
    try:
        return version("flopledger")
    except PackageNotFoundError:  # a checkout run without installing
        return "unknown"


def _columns(con: duckdb.DuckDBPyConnection, schema: str) -> dict[str, dict[str, str]]:
    """table -> column -> type, for the raw tables in `schema` of the current database."""
    rows = con.execute(
        "SELECT table_name, column_name, data_type FROM duckdb_columns() "
        "WHERE database_name = current_database() AND schema_name = ? "
        "ORDER BY table_name, column_index",
        [schema],
    ).fetchall()
    found: dict[str, dict[str, str]] = {}
    for table, column, kind in rows:
        found.setdefault(table, {})[column] = kind
    return found


@cache
def expected_columns() -> dict[str, dict[str, str]]:
    """This version's raw tables as its DDL makes them (in a database of their own)."""
    con = duckdb.connect(":memory:")
    try:
        con.execute(models.functions_sql())
        for table in models.raw_tables():
            con.execute(table.sql)
        return _columns(con, "main")
    finally:
        con.close()


def _recorded(con: duckdb.DuckDBPyConnection) -> set[str]:
    table = f"{models.BOOKKEEPING_SCHEMA}.migrations"
    exists = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() "
        "AND schema_name = ? AND table_name = 'migrations'",
        [models.BOOKKEEPING_SCHEMA],
    ).fetchone()
    if not exists or not exists[0]:
        return set()
    return {row[0] for row in con.execute(f"SELECT migration FROM {table}").fetchall()}


def plan(
    con: duckdb.DuckDBPyConnection, migrations: tuple[models.Migration, ...] | None = None
) -> Plan:
    """What an upgrade would do to the warehouse `con` has open (read-only is enough)."""
    migrations = models.migrations() if migrations is None else migrations
    have = _columns(con, "main")
    if not any(t.name in have for t in models.raw_tables()):  # not made yet: the first run makes it
        return Plan()
    recorded = _recorded(con)
    pending = tuple(m for m in migrations if m.name not in recorded)
    changed = {t for m in pending for t in m.tables}
    added, retyped = [], []
    for table, columns in expected_columns().items():
        if table not in have:
            added.append(table)
            continue
        if table in changed:  # a pending migration reshapes it: the next plan says what is left
            continue
        for column, kind in columns.items():
            if column not in have[table]:
                added.append(f"{table}.{column}")
            elif have[table][column] != kind:
                retyped.append(f"{table}.{column} is {have[table][column]} here, {kind} now")
    return Plan(pending, tuple(added), tuple(retyped))


def migrate(
    con: duckdb.DuckDBPyConnection,
    record_change: Callable[[duckdb.DuckDBPyConnection, str], None],
    migrations: tuple[models.Migration, ...] | None = None,
) -> list[tuple[str, str]]:
    """Apply the migrations not yet recorded (before the raw tables gain new columns); returns
    (migration, outcome) for each one recorded now. `record_change(con, table)` records a
    table's change as a whole (warehouse/duckdb.py's bookkeeping)."""
    migrations = models.migrations() if migrations is None else migrations
    done = _recorded(con) if migrations else set()
    to_run = [m for m in migrations if m.name not in done]
    if not to_run:  # every run's start, once all are recorded: no more than reading them
        return []
    have = _columns(con, "main")
    fresh = not any(t.name in have for t in models.raw_tables())
    outcomes = []
    for migration in to_run:
        missing = sorted(t for t in migration.tables if t not in have)
        con.execute("BEGIN TRANSACTION")
        try:
            if fresh:
                outcome = NOT_NEEDED_FRESH
            elif missing:
                outcome = f"not needed: no {', '.join(missing)} table here"
            else:
                con.execute(migration.sql)
                for table in sorted(migration.tables):
                    record_change(con, table)
                outcome = "applied"
            con.execute(
                f"INSERT INTO {models.BOOKKEEPING_SCHEMA}.migrations "
                "VALUES (?, ?, ?, now()::TIMESTAMP, ?)",
                [migration.name, migration.description, outcome, _version()],
            )
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        outcomes.append((migration.name, outcome))
        have = _columns(con, "main")
    return outcomes
