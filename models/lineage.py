"""Which tables a statement reads, from its SQL (SQLGlot): a model's upstreams are never a list
kept by hand."""

from __future__ import annotations

import hashlib
import json
import os
from functools import cache
from pathlib import Path

import sqlglot
from sqlglot import exp

from flopledger.models.sql_text import without_comments


class LineageError(ValueError):
    """A statement SQLGlot cannot read as DuckDB SQL."""


def _cache_folder() -> Path:
    """Where the tables each statement reads are kept across processes."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    # By SQLGlot's version and this file's text: either may read a statement differently.
    code = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]
    return Path(base) / "flopledger" / f"lineage-{sqlglot.__version__}-{code}"


_CACHE_FOLDER = cache(_cache_folder)


@cache
def tables_read(sql: str) -> frozenset[str]:
    """The tables `sql` (DuckDB's dialect) reads by plain name: every table reference that is
    not one of its own CTEs, not a table function and not qualified with a schema of DuckDB's
    own (information_schema, pg_catalog).

    Kept across processes by the text's digest (a folder under $XDG_CACHE_HOME, by SQLGlot's
    version): parsing the models' SQL is most of what starting a run's Dagster definitions
    costs (~1.3 s a process), and a changed file has another digest. An unreadable or
    unwritable cache is parsed past, never an error."""
    kept = _CACHE_FOLDER() / f"{hashlib.sha256(sql.encode()).hexdigest()}.json"
    try:
        return frozenset(json.loads(kept.read_text()))
    except (OSError, ValueError):
        pass
    found = _parse_tables_read(sql)
    try:
        kept.parent.mkdir(parents=True, exist_ok=True)
        partial = kept.with_name(f".{kept.name}.{os.getpid()}")
        partial.write_text(json.dumps(sorted(found)))
        partial.replace(kept)
    except OSError:
        pass
    return found


def _parse_tables_read(sql: str) -> frozenset[str]:
    try:
        tree = sqlglot.parse_one(without_comments(sql), read="duckdb")
    except sqlglot.errors.ParseError as exc:
        raise LineageError(f"not parsed as DuckDB SQL: {str(exc).splitlines()[0]}") from None
    ctes = {cte.alias_or_name for cte in tree.find_all(exp.CTE)}
    found = set()
    for table in tree.find_all(exp.Table):
        if not isinstance(table.this, exp.Identifier) or table.db:
            continue  # a table function (unnest, range) or a qualified catalogue table
        if table.name not in ctes:
            found.add(table.name)
    return frozenset(found)


# Statements that write no table's rows (views, macros and comments the snapshot's publish
# compares itself).
_NO_ROWS = (
    exp.Query,
    exp.Set,
    exp.Use,
    exp.Transaction,
    exp.Commit,
    exp.Rollback,
    exp.Pragma,
    exp.Comment,
)
_WRITES = (exp.Insert, exp.Update, exp.Delete, exp.Merge, exp.Create, exp.Drop, exp.Alter)


@cache
def tables_written(sql: str) -> frozenset[str] | None:
    """The tables whose rows `sql` (DuckDB's dialect) may change, by name: the target of each
    INSERT, UPDATE, DELETE, MERGE and CREATE, DROP or ALTER TABLE; none for a SELECT or a
    setting. None when that cannot be told: SQLGlot does not read the statement, or it writes
    something other than a plain table."""
    try:
        trees = sqlglot.parse(without_comments(sql), read="duckdb")
    except sqlglot.errors.ParseError:
        return None
    found = set()
    for tree in trees:
        if tree is None or isinstance(tree, _NO_ROWS):
            continue
        if not isinstance(tree, _WRITES):
            return None
        if (
            isinstance(tree, exp.Create | exp.Drop)
            and str(tree.args.get("kind")).upper() != "TABLE"
        ):
            continue  # a view, macro, schema: no table's rows
        target = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
        if isinstance(tree, exp.Drop):  # SQLGlot keeps a dropped table among its expressions
            target = tree.find(exp.Table)
        if not isinstance(target, exp.Table) or not isinstance(target.this, exp.Identifier):
            return None
        found.add(target.name)
    return frozenset(found)
