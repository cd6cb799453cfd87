"""SQL models: one file per warehouse table.

`raw/` holds the contracts between collectors and models (CREATE TABLE statements);
`marts/` holds what users read (one SELECT per table, written in DuckDB's dialect).
Tables that are replaced a day at a time (telemetry, probes, jobs) carry their stable id
without a PRIMARY KEY constraint: DuckDB's index can refuse a delete and re-insert of the
same keys in one transaction on large tables; the day-by-day replace keeps ids unique.
Each file starts with `-- @table:` (what one row means); columns are documented by a
trailing `-- comment` in raw DDL and by `-- @col name: text` lines in marts. Those
comments become the warehouse's own table and column comments.

`queries/` holds the SQL that Python code runs (budgets, alerts, checks, the headline): one
statement per file, named for what it returns, loaded by name with `query_sql`. Each starts
with `-- @query:` (what one row means) and one `-- @param name: text` line per `$name`
parameter, which callers bind by name (a dict), never by formatting text into the SQL.

`bigquery/` holds the queries flopledger sends to BigQuery itself (the billing export), in
BigQuery's dialect with `@name` parameters; `{export_table}` stands for the configured
table, checked to be `project.dataset.table` before it is put in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from flopledger.models.sql_text import named_params, without_comments

MODELS_DIR = Path(__file__).parent

_TABLE_RE = re.compile(r"^--\s*@table:\s*(.+)$", re.M)
_COL_RE = re.compile(r"^--\s*@col\s+(\w+):\s*(.+)$", re.M)
_DDL_COL_RE = re.compile(r"^\s+(\w+)\s+[A-Z][^\n]*?--\s*(.+)$", re.M)
_DEPENDS_RE = re.compile(r"^--\s*@depends:\s*(.+)$", re.M)
_QUERY_RE = re.compile(r"^--\s*@query:\s*(.+)$", re.M)
_PARAM_DOC_RE = re.compile(r"^--\s*@param\s+(\w+):\s*(.+)$", re.M)


@dataclass(frozen=True)
class Model:
    """One SQL file: its table name, text, and the comments it carries."""

    name: str
    kind: str  # "raw" (DDL) or "mart" (a SELECT)
    sql: str
    table_comment: str
    column_comments: dict[str, str] = field(default_factory=dict)
    depends_on: tuple[str, ...] = ()


def _parse(path: Path, kind: str) -> Model:
    text = path.read_text()
    table = _TABLE_RE.search(text)
    if table is None:
        raise ValueError(f"{path}: missing the '-- @table:' header comment")
    pattern = _DDL_COL_RE if kind == "raw" else _COL_RE
    columns = {m.group(1): m.group(2).strip() for m in pattern.finditer(text)}
    depends = _DEPENDS_RE.search(text)
    deps = tuple(d.strip() for d in depends.group(1).split(",")) if depends else ()
    return Model(path.stem, kind, text, table.group(1).strip(), columns, deps)


def functions_sql() -> str:
    """Macros the models use (models/functions.sql)."""
    return (MODELS_DIR / "functions.sql").read_text()


@cache
def raw_tables() -> tuple[Model, ...]:
    """Every raw table's DDL, in file-name order."""
    return tuple(_parse(p, "raw") for p in sorted((MODELS_DIR / "raw").glob("*.sql")))


@cache
def marts() -> tuple[Model, ...]:
    """Every mart, ordered so that each comes after the marts it depends on."""
    found = {p.stem: _parse(p, "mart") for p in sorted((MODELS_DIR / "marts").glob("*.sql"))}
    ordered: list[Model] = []

    def visit(name: str, trail: tuple[str, ...]) -> None:
        if name in trail:
            raise ValueError(f"models/marts: dependency cycle {' -> '.join((*trail, name))}")
        model = found[name]
        if model in ordered:
            return
        for dep in model.depends_on:
            if dep in found:
                visit(dep, (*trail, name))
        ordered.append(model)

    for name in found:
        visit(name, ())
    return tuple(ordered)


def model(name: str) -> Model:
    """One model by table name."""
    for m in (*raw_tables(), *marts()):
        if m.name == name:
            return m
    raise KeyError(name)


@cache
def query_names() -> tuple[str, ...]:
    """The name of every query in models/queries (its file name without `.sql`), sorted."""
    return tuple(sorted(p.stem for p in (MODELS_DIR / "queries").glob("*.sql")))


@cache
def query_sql(name: str) -> str:
    """The text of models/queries/<name>.sql. A name that is not a query file is refused."""
    if name not in query_names():
        raise KeyError(f"models/queries: no query named {name!r}")
    path = MODELS_DIR / "queries" / f"{name}.sql"
    text = path.read_text()
    if _QUERY_RE.search(text) is None:
        raise ValueError(f"{path}: missing the '-- @query:' header comment")
    return text


def query_params(name: str) -> dict[str, str]:
    """The parameters a query's header documents (`-- @param name: text`), by name."""
    return {m.group(1): m.group(2).strip() for m in _PARAM_DOC_RE.finditer(query_sql(name))}


def query_params_used(name: str) -> frozenset[str]:
    """The `$name` parameters a query's SQL uses (comments left out)."""
    return named_params(query_sql(name))


_EXPORT_TABLE_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9:.-]*\.\w+\.\w+", re.ASCII)


def bigquery_sql(name: str, export_table: str) -> str:
    """models/bigquery/<name>.sql for one export table (`project.dataset.table`)."""
    path = MODELS_DIR / "bigquery" / f"{name}.sql"
    if not path.is_file() or "/" in name:
        raise KeyError(f"models/bigquery: no query named {name!r}")
    if not _EXPORT_TABLE_RE.fullmatch(export_table):
        raise ValueError(f"not a project.dataset.table name: {export_table!r}")
    # Sent without its comments: they document the file, the service has no use for them.
    return without_comments(path.read_text()).strip().replace("{export_table}", export_table)
