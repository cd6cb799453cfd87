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
