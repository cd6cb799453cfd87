"""docs/tables.md from the warehouse's own table and column comments.

`python -m pipelines.tables_doc WAREHOUSE.duckdb > docs/tables.md` writes the reference;
a test checks the committed file against a freshly built warehouse, so the two cannot
drift apart. Example queries live after the marker and are kept as written.
"""

import sys
from pathlib import Path

import duckdb

MARKER = "<!-- generated above; hand-written below -->"
RAW = ("billing_line_items", "jobs", "job_placements", "gpu_samples", "tpu_samples", "probe_results", "quarantine")


def table_sections(con: duckdb.DuckDBPyConnection) -> str:
    tables = con.execute(
        "SELECT table_name, comment FROM duckdb_tables() WHERE NOT internal AND schema_name = 'main' "
        "ORDER BY table_name"
    ).fetchall()
    kind = {name: ("raw" if name in RAW else "mart") for name, _ in tables}
    parts = []
    for heading, wanted in (("Raw tables", "raw"), ("Marts, budgets and settings", "mart")):
        parts.append(f"## {heading}\n")
        for name, comment in tables:
            if kind[name] != wanted:
                continue
            parts.append(f"### `{name}`\n\n{comment or ''}\n\n| column | type | meaning |\n|---|---|---|")
            columns = con.execute(
                "SELECT column_name, data_type, comment FROM duckdb_columns() "
                "WHERE table_name = ? ORDER BY column_index",
                [name],
            ).fetchall()
            for column, data_type, text in columns:
                cell = (text or "").replace("|", "\\|")
                parts.append(f"| `{column}` | {data_type} | {cell} |")
            parts.append("")
    return "\n".join(parts)


def render(warehouse: Path, existing: str = "") -> str:
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        body = table_sections(con)
    finally:
        con.close()
    tail = existing.split(MARKER, 1)[1] if MARKER in existing else "\n"
    head = (
        "# Tables\n\nEvery table in the warehouse's default schema, with the comments the "
        "warehouse itself carries (`DESCRIBE`, `duckdb_columns()`). Money is USD unless a column "
        "says otherwise; `_nanos` columns are integer nano-USD (or nano-seconds).\n\n"
    )
    return head + body + "\n" + MARKER + tail


if __name__ == "__main__":
    target = Path("docs/tables.md")
    sys.stdout.write(render(Path(sys.argv[1]), target.read_text() if target.exists() else ""))
