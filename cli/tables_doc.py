"""docs/tables.md from the warehouse's own table and column comments.

`python -m flopledger.cli.tables_doc CONFIG.yaml > docs/tables.md` writes the reference from the
config's warehouse (its published snapshot); a test checks the committed file against a
freshly built warehouse, so the two cannot drift apart. Example queries live after the
marker and are kept as written.
"""

import sys
from pathlib import Path

import sqlglot
from sqlglot import exp

from flopledger import models
from flopledger.models.sql_text import without_comments
from flopledger.settings import load_config
from flopledger.warehouse import TableInfo, Warehouse, open_warehouse
from flopledger.warehouse.base import ColumnInfo

MARKER = "<!-- generated above; hand-written below -->"
# The raw tables the sources write (models/raw/ also holds the tables the pipeline writes
# itself: budgets, alerts, settings; those are listed with the marts).
RAW = (
    "billing_line_items",
    "jobs",
    "job_placements",
    "gpu_samples",
    "tpu_samples",
    "probe_results",
    "managed_requests",
    "managed_usage",
    "managed_costs",
    "managed_prices",
    "focus_line_items",
    "quarantine",
)
INTERMEDIATE = (
    "## Intermediate tables\n\nThe allocation's steps (models/intermediate/), in a schema of their "
    "own, `intermediate` (BigQuery: the dataset `<dataset>_intermediate`), apart from the tables "
    "people read; `flopledger sql` finds them by name, a DuckDB shell as `intermediate.<table>`.\n"
)

BOOKKEEPING = (
    "## The warehouse's own records\n\nWhat changed and what was built, which settings are in "
    "force from which day, each restatement, each month's watched figures (models/bookkeeping/): "
    "in a schema of their own, `bookkeeping` (BigQuery: the dataset `<dataset>_bookkeeping`), "
    "apart from the tables people read and from the comparison of an incremental with a full "
    "build; `flopledger sql` finds them by name, a DuckDB shell as `bookkeeping.<table>`.\n"
)


def _type(kind: exp.DataType) -> str:
    """A column's type as DuckDB's catalogue names it (sqlglot reads VARCHAR as TEXT)."""
    return "VARCHAR" if kind.this == exp.DataType.Type.TEXT else kind.sql()


def bookkeeping_tables() -> list[TableInfo]:
    """The bookkeeping tables as their DDL declares them (models/bookkeeping/)."""
    found = []
    for model in models.bookkeeping_tables():
        tree = sqlglot.parse_one(without_comments(model.sql), read="duckdb")
        cols = tuple(
            ColumnInfo(
                model.name,
                d.name,
                _type(d.args["kind"]),
                model.column_comments.get(d.name, ""),
            )
            for d in tree.find_all(exp.ColumnDef)
            if isinstance(d.parent, exp.Schema)
        )
        found.append(TableInfo(model.name, model.table_comment, cols))
    return sorted(found, key=lambda t: t.table)


def _table_section(table: TableInfo) -> list[str]:
    lines = [
        f"### `{table.table}`\n\n{table.comment}\n\n| column | type | meaning |\n|---|---|---|"
    ]
    for column in table.columns:
        cell = column.comment.replace("|", "\\|")
        lines.append(f"| `{column.column}` | {column.data_type} | {cell} |")
    lines.append("")
    return lines


def table_sections(tables: list[TableInfo]) -> str:
    parts = []
    for heading, raw in (("Raw tables", True), ("Marts, budgets and settings", False)):
        parts.append(f"## {heading}\n")
        for table in tables:
            if (table.table in RAW) == raw:
                parts += _table_section(table)
    return "\n".join(parts)


def render(warehouse: Warehouse, existing: str = "") -> str:
    body = table_sections(warehouse.catalogue())
    steps = [line for t in warehouse.catalogue(intermediate=True) for line in _table_section(t)]
    body += "\n" + "\n".join([INTERMEDIATE, *steps])
    books = [line for t in bookkeeping_tables() for line in _table_section(t)]
    body += "\n" + "\n".join([BOOKKEEPING, *books])
    tail = existing.split(MARKER, 1)[1] if MARKER in existing else "\n"
    head = (
        "# Tables\n\nEvery table in the warehouse's default schema, with the comments the "
        "warehouse itself carries (`DESCRIBE`, `duckdb_columns()`). Money is USD unless a column "
        "says otherwise; `_nanos` columns are integer nano-USD (or nano-seconds).\n\n"
    )
    return head + body + "\n" + MARKER + tail


if __name__ == "__main__":
    target = Path("docs/tables.md")
    warehouse = open_warehouse(load_config(sys.argv[1]).warehouse)
    sys.stdout.write(render(warehouse, target.read_text() if target.exists() else ""))
