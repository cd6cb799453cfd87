"""The model layer: SQL files, one per warehouse table, and the named queries other rooms run.

- `raw/`: the contracts between collectors and models (CREATE TABLE statements). Collectors
  already normalise names, units and types (what dbt's staging models do), so the raw tables
  are the staging layer; tables replaced a day at a time carry their stable id without a
  PRIMARY KEY constraint (DuckDB's index can refuse a delete and re-insert of the same keys in
  one transaction on large tables; the day-by-day replace keeps ids unique).
- `intermediate/`: the allocation's steps, one SELECT per table. They are built into a schema
  of their own (`intermediate`: DuckDB's schema, BigQuery's `<dataset>_intermediate`) so the
  tables people read are not crowded by them; models and queries name them unqualified.
- `marts/`: what users read, one SELECT per table, in the default schema.
- `queries/`: the statements Python code runs (budgets, alerts, the headline, reports, the
  figures' own queries the pages run too), and in `queries/fragments/` what several of them
  read as a table (the run filters, the run search).
- `checks/`: the statements behind the checks models declare (`-- @check` in a model's
  header): each returns the rows that break the check, so it passes when none come back.
- `bigquery/`: the queries sent to BigQuery itself (the billing export), in BigQuery's dialect;
  `{export_table}` stands for the configured table, checked to be `project.dataset.table`.

Every file has the one header style (models/sql_files.py). A model's upstreams are the tables
its SQL reads (models/lineage.py), and models are built in that order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from flopledger.models.grain import Grain, parse_grain
from flopledger.models.lineage import tables_read, tables_written
from flopledger.models.sql_files import CheckSpec, SqlFile, SqlFolder, parse

MODELS_DIR = Path(__file__).parent
RAW = SqlFolder(MODELS_DIR / "raw", "models/raw")
INTERMEDIATE = SqlFolder(MODELS_DIR / "intermediate", "models/intermediate")
MARTS = SqlFolder(MODELS_DIR / "marts", "models/marts")
QUERIES = SqlFolder(MODELS_DIR / "queries", "models/queries")
CHECKS = SqlFolder(MODELS_DIR / "checks", "models/checks")
BIGQUERY = SqlFolder(MODELS_DIR / "bigquery", "models/bigquery", "bigquery")
BOOKKEEPING = SqlFolder(MODELS_DIR / "bookkeeping", "models/bookkeeping")
MIGRATIONS = SqlFolder(MODELS_DIR / "migrations", "models/migrations")

# The schema each layer's tables live in.
SCHEMAS = {
    "raw": "main",
    "intermediate": "intermediate",
    "mart": "main",
    "bookkeeping": "bookkeeping",
}
INTERMEDIATE_SCHEMA = SCHEMAS["intermediate"]
# The warehouse's own records (what changed, what was built): apart from what people read.
BOOKKEEPING_SCHEMA = SCHEMAS["bookkeeping"]
# Bookkeeping tables an older warehouse kept in main (or the dataset people read): their rows
# move to the bookkeeping schema on its next ensure_schema; the rest never lived anywhere else.
MOVED_TO_BOOKKEEPING = ("settings_history", "restatements")


@dataclass(frozen=True)
class Model:
    """One table's SQL file: its name, layer, text and the comments it carries."""

    name: str
    kind: str  # "raw" (DDL), "intermediate" or "mart" (a SELECT)
    sql: str
    table_comment: str
    column_comments: dict[str, str] = field(default_factory=dict)
    depends_on: tuple[str, ...] = ()  # the tables its SQL reads, sorted
    checks: tuple[CheckSpec, ...] = ()
    grain: Grain | None = None  # what places its rows in time (None: a whole table)

    @property
    def schema(self) -> str:
        return SCHEMAS[self.kind]


def _model(file: SqlFile, kind: str) -> Model:
    if file.kind != "table":
        raise ValueError(f"{file.path}: a model starts with '-- @table:'")
    reads = (
        ()
        if kind in ("raw", "bookkeeping")
        else tuple(sorted(tables_read(file.text) - {file.name}))
    )
    grain = parse_grain(str(file.path), *file.grain) if file.grain else None
    if grain is not None and grain.end is not None and kind != "raw":
        raise ValueError(f"{file.path}: a model's rows are placed by one column, not a span")
    return Model(file.name, kind, file.text, file.about, file.columns, reads, file.checks, grain)


@dataclass(frozen=True)
class Migration:
    """One explicit change to a raw table (models/migrations/README.md)."""

    name: str  # the file's name, NNNN_what: the order they run in
    description: str
    sql: str
    tables: frozenset[str]  # the tables it changes


@cache
def migrations(folder: SqlFolder = MIGRATIONS) -> tuple[Migration, ...]:
    """Every migration, in name order (none when the folder holds none)."""
    found = []
    for file in folder.files():
        written = tables_written(file.text)
        if not written:
            raise ValueError(f"{file.path}: a migration must change a table it names")
        found.append(Migration(file.path.stem, file.about, file.text, written))
    return tuple(found)


def functions_sql() -> str:
    """Macros the models use (models/functions.sql)."""
    return parse(MODELS_DIR / "functions.sql").text


@cache
def raw_tables() -> tuple[Model, ...]:
    """Every raw table's DDL, in file-name order."""
    return tuple(_model(f, "raw") for f in RAW.files())


@cache
def bookkeeping_tables() -> tuple[Model, ...]:
    """The warehouse's own records (models/bookkeeping/), built into their own schema."""
    return tuple(_model(f, "bookkeeping") for f in BOOKKEEPING.files())


@cache
def marts() -> tuple[Model, ...]:
    """Every intermediate table and mart, ordered so that each comes after what it reads."""
    found = {f.name: _model(f, "intermediate") for f in INTERMEDIATE.files()}
    for f in MARTS.files():
        if f.name in found:
            raise ValueError(f"models: {f.name} is both an intermediate table and a mart")
        found[f.name] = _model(f, "mart")
    ordered: list[Model] = []

    def visit(name: str, trail: tuple[str, ...]) -> None:
        if name in trail:
            raise ValueError(f"models: dependency cycle {' -> '.join((*trail, name))}")
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
    for m in (*raw_tables(), *marts(), *bookkeeping_tables()):
        if m.name == name:
            return m
    raise KeyError(name)


def intermediate_tables() -> frozenset[str]:
    """The tables built into the intermediate schema."""
    return frozenset(m.name for m in marts() if m.kind == "intermediate")


def query_sql(name: str) -> str:
    """The statement of models/queries/<name>.sql, its fragments spliced in (comments dropped).
    A name that is not a query file is refused."""
    file = QUERIES.file(name)
    if file.kind != "query":
        raise ValueError(f"{file.path}: a query starts with '-- @query:'")
    return QUERIES.text(name)


_EXPORT_TABLE_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9:.-]*\.\w+\.\w+", re.ASCII)


def bigquery_sql(name: str, export_table: str) -> str:
    """models/bigquery/<name>.sql for one export table (`project.dataset.table`)."""
    if not _EXPORT_TABLE_RE.fullmatch(export_table):
        raise ValueError(f"not a project.dataset.table name: {export_table!r}")
    # Sent without its comments: they document the file, the service has no use for them.
    return BIGQUERY.file(name).statement.replace("{export_table}", export_table)
