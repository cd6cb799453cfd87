"""The dashboards' SQL: one query per file in `dashboards/sql/`, shared fragments spliced in.

A fragment (`dashboards/sql/fragments/<name>.sql`) is one SELECT that a query reads as if it
were a table: `FROM runs_in_filters AS r`. `text()` replaces each such name written after
FROM or JOIN with the fragment in parentheses (a fragment may read other fragments), so
every file stays a plain, parseable SELECT in DuckDB's dialect. Only these fixed files are
ever spliced; comments are dropped on the way. Values reach SQL only as named parameters
(`$name`), and `check()` holds the code to binding exactly the names a query's SQL uses.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from flopledger.models.sql_text import named_params, without_comments

SQL_DIR = Path(__file__).parent / "sql"
FRAGMENT_DIR = SQL_DIR / "fragments"
MAX_DEPTH = 5  # fragments reading fragments; deeper is a cycle

_READ = re.compile(r"\b(FROM|JOIN)(\s+)([a-z_][a-z0-9_]*)\b")


def names() -> tuple[str, ...]:
    """Every query's name (its file name without `.sql`), sorted."""
    return tuple(sorted(p.stem for p in SQL_DIR.glob("*.sql")))


def fragment_names() -> tuple[str, ...]:
    return tuple(sorted(p.stem for p in FRAGMENT_DIR.glob("*.sql")))


def _splice(sql: str, fragments: tuple[str, ...], depth: int = 0) -> str:
    if depth > MAX_DEPTH:
        raise ValueError(f"dashboards/sql/fragments nest deeper than {MAX_DEPTH}: a cycle?")

    def inline(match: re.Match[str]) -> str:
        keyword, space, name = match.groups()
        if name not in fragments:
            return match.group(0)
        body = without_comments((FRAGMENT_DIR / f"{name}.sql").read_text()).strip()
        return f"{keyword}{space}(\n{_splice(body, fragments, depth + 1)}\n)"

    return _READ.sub(inline, sql)


@cache
def text(name: str) -> str:
    """The SQL of `dashboards/sql/<name>.sql`, fragments spliced in (names come from code)."""
    if name not in names():
        raise KeyError(f"no dashboard query named {name!r}")
    return _splice(
        without_comments((SQL_DIR / f"{name}.sql").read_text()), fragment_names()
    ).strip()


@cache
def params(name: str) -> frozenset[str]:
    """The `$name` parameters a query's SQL uses, its fragments' included."""
    return named_params(text(name))


def check(name: str, bound: Mapping[str, Any]) -> None:
    """Refuse to run a query with parameters other than the ones its SQL uses."""
    wanted = params(name)
    if set(bound) != wanted:
        missing, extra = sorted(wanted - set(bound)), sorted(set(bound) - wanted)
        raise TypeError(f"dashboard query {name!r}: missing parameters {missing}, unknown {extra}")
