"""The dashboards' SQL: one query per file in `dashboards/sql/`, read by the one SQL loader
(models/sql_files.py), fragments spliced in.

A fragment (`dashboards/sql/fragments/<name>.sql`) is one SELECT that a query reads as if it
were a table: `FROM spend_in_filters AS s`; the loader puts it in as a subquery (a fragment may
read other fragments), so every file stays a plain, parseable SELECT in DuckDB's dialect. Values
reach SQL only as named parameters (`$name`), and `check()` holds the code to binding exactly the
names a query's SQL uses.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flopledger.models.sql_files import SqlFolder

SQL = SqlFolder(Path(__file__).parent / "sql", "dashboards/sql")


def names() -> tuple[str, ...]:
    """Every query's name (its file name without `.sql`), sorted."""
    return SQL.names()


def fragment_names() -> tuple[str, ...]:
    return SQL.fragment_names()


def text(name: str) -> str:
    """The SQL of `dashboards/sql/<name>.sql`, fragments spliced in (names come from code)."""
    if name not in names():
        raise KeyError(f"no dashboard query named {name!r}")
    return SQL.text(name)


def params(name: str) -> frozenset[str]:
    """The `$name` parameters a query's SQL uses, its fragments' included."""
    return SQL.params(name)


def check(name: str, bound: Mapping[str, Any]) -> None:
    """Refuse to run a query with parameters other than the ones its SQL uses."""
    wanted = params(name)
    if set(bound) != wanted:
        missing, extra = sorted(wanted - set(bound)), sorted(set(bound) - wanted)
        raise TypeError(f"dashboard query {name!r}: missing parameters {missing}, unknown {extra}")
