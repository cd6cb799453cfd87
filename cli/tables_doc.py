"""docs/tables.md from the warehouse's own table and column comments.

`python -m flopledger.cli.tables_doc CONFIG.yaml > docs/tables.md` writes the reference from the
config's warehouse (its published snapshot); a test checks the committed file against a
freshly built warehouse, so the two cannot drift apart. Example queries live after the
marker and are kept as written.
"""

import sys
from pathlib import Path

from flopledger.settings import load_config
from flopledger.warehouse import TableInfo, Warehouse, open_warehouse

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
