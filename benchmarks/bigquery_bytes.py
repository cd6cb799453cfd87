"""Bytes a BigQuery warehouse would scan, per dashboard page and per run, estimated from a
DuckDB warehouse of the same fleet (bqemulator's dry runs report 0 bytes, so they cannot).

How: BigQuery bills a query by the logical bytes of the columns it reads in the tables (or
partitions) it scans, at least 10 MB per table referenced (on-demand). Each table's columns
are sized here by BigQuery's own rules (INT64, FLOAT64, DATE, TIMESTAMP 8 bytes, NUMERIC 16,
BIGNUMERIC 32, BOOL 1, STRING and JSON 2 + their UTF-8 bytes, an array or struct the sum of
its parts, NULL 0) from the published DuckDB snapshot; SQLGlot resolves which columns of
which table each query reads (`SELECT *` expanded). A page's bytes are its queries' (the
calls in its dashboards/views file, unfiltered: an upper bound, as a day filter prunes the
partitioned marts); a run's are each mart's and intermediate table's build reading its sources'
columns.

    .venv/bin/python benchmarks/bigquery_bytes.py demo/flopledger.yaml [--scale 18.4]

`--scale` multiplies every table's bytes (a larger fleet: the marts grow with its
resource-hours and runs), the 10 MB minimum applied after.
"""

from __future__ import annotations

import argparse
import ast
from collections import defaultdict
from pathlib import Path

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import traverse_scope

from flopledger import models
from flopledger.dashboards import queries
from flopledger.settings import load_config
from flopledger.warehouse import open_warehouse
from flopledger.warehouse.base import Reader

MIN_BILLED = 10 * 2**20  # on-demand: at least 10 MB per table referenced
FIXED = {
    "BIGINT": 8, "INTEGER": 8, "SMALLINT": 8, "TINYINT": 8, "UBIGINT": 16, "DOUBLE": 8,
    "FLOAT": 8, "DATE": 8, "TIMESTAMP": 8, "TIMESTAMP WITH TIME ZONE": 8, "BOOLEAN": 1,
    "HUGEINT": 32,
}  # fmt: skip
VIEWS = Path(__file__).resolve().parents[1] / "dashboards" / "views"


def _size_sql(column: str, kind: str) -> str:
    """SQL summing one column's BigQuery logical bytes (NULLs are 0)."""
    if kind in FIXED:
        return f"{FIXED[kind]} * count({column})"
    if kind.startswith("DECIMAL"):
        precision, scale = (int(x) for x in kind[8:-1].split(","))
        size = 16 if scale <= 9 and precision - scale <= 29 else 32
        return f"{size} * count({column})"
    if kind == "VARCHAR":
        return f"sum(2 + strlen({column}))"
    return f"sum(2 + strlen(CAST(to_json({column}) AS VARCHAR)))"  # JSON, arrays, structs


def column_bytes(reader: Reader) -> dict[str, dict[str, int]]:
    """table -> column -> logical bytes, for every table of the snapshot."""
    listed = reader.query(
        "SELECT table_name, column_name, data_type FROM information_schema.columns "
        "WHERE table_schema IN ('main', 'intermediate') ORDER BY table_name, ordinal_position"
    ).to_pylist()
    by_table: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for row in listed:
        by_table[row["table_name"]].append((row["column_name"], row["data_type"]))
    out = {}
    for table, cols in by_table.items():
        parts = [f'coalesce({_size_sql(f""""{c}" """.strip(), k)}, 0) AS "{c}"' for c, k in cols]
        sizes = reader.query(f'SELECT {", ".join(parts)} FROM "{table}"').to_pylist()[0]
        out[table] = {c: int(v) for c, v in sizes.items()}
    return out


def columns_read(sql: str, schema: dict[str, dict[str, str]]) -> dict[str, set[str]]:
    """table -> the columns a DuckDB query reads of it (every column where not resolved)."""
    tree = sqlglot.parse_one(sql, read="duckdb")
    read: dict[str, set[str]] = defaultdict(set)
    try:
        tree = qualify(tree, schema=schema, dialect="duckdb", validate_qualify_columns=False)
        for scope in traverse_scope(tree):
            for column in scope.columns:
                source = scope.sources.get(column.table)
                if isinstance(source, exp.Table) and source.name in schema:
                    read[source.name].add(column.name)
            for source in scope.sources.values():
                if isinstance(source, exp.Table) and source.name in schema:
                    read.setdefault(source.name, set())
    except Exception:  # noqa: BLE001 - not resolved: count every column of every table read
        for table in tree.find_all(exp.Table):
            if table.name in schema:
                read[table.name] = set(schema[table.name])
    return read


def billed(read: dict[str, set[str]], sizes: dict[str, dict[str, int]], scale: float) -> int:
    total = 0
    for table, cols in read.items():
        scanned = sum(sizes[table].get(c, 0) for c in cols) * scale
        total += max(MIN_BILLED, int(scanned))
    return total


def page_queries() -> dict[str, list[str]]:
    """Each dashboards/views/<page>.py and the SQL of the queries it runs: its own
    (`data.query`: dashboards/sql/) and the figures' (`data.named`: models/queries/)."""
    text = {"query": queries.text, "named": models.query_sql}
    out = {}
    for path in sorted(VIEWS.glob("*.py")):
        sqls = [
            text[kind](node.args[0].value)
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Call)
            and (kind := getattr(node.func, "attr", getattr(node.func, "id", ""))) in text
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ]
        if sqls:
            out[path.stem] = sqls
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config")
    parser.add_argument("--scale", type=float, default=1.0)
    args = parser.parse_args()
    reader = open_warehouse(load_config(args.config).warehouse).reader()
    sizes = column_bytes(reader)
    schema = {t: {c: "VARCHAR" for c in cols} for t, cols in sizes.items()}
    mib = 2**20
    print(f"| table | MiB (x{args.scale:g}) |\n|---|---:|")
    for table in sorted(sizes, key=lambda t: -sum(sizes[t].values()))[:12]:
        print(f"| {table} | {sum(sizes[table].values()) * args.scale / mib:,.1f} |")
    print("\n| page | queries | MiB billed per load |\n|---|---:|---:|")
    for page, sqls in page_queries().items():
        total = sum(billed(columns_read(sql, schema), sizes, args.scale) for sql in sqls)
        print(f"| {page} | {len(sqls)} | {total / mib:,.0f} |")
    run = 0
    for mart in models.marts():
        run += billed(columns_read(mart.sql, schema), sizes, args.scale)
    print(f"\nrun (every mart rebuilt): {run / mib:,.0f} MiB billed")


if __name__ == "__main__":
    main()
