"""Which tables a statement reads, from its SQL (SQLGlot): a model's upstreams are never a list
kept by hand."""

from __future__ import annotations

from functools import cache

import sqlglot
from sqlglot import exp

from flopledger.models.sql_text import without_comments


class LineageError(ValueError):
    """A statement SQLGlot cannot read as DuckDB SQL."""


@cache
def tables_read(sql: str) -> frozenset[str]:
    """The tables `sql` (DuckDB's dialect) reads by plain name: every table reference that is
    not one of its own CTEs, not a table function and not qualified with a schema of DuckDB's
    own (information_schema, pg_catalog)."""
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
