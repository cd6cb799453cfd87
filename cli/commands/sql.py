"""`flopledger sql`: one read-only query against the latest published snapshot, printed."""

from __future__ import annotations

import argparse
import sys

import pyarrow as pa

from flopledger.settings import load_config
from flopledger.warehouse import QueryError, open_warehouse


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("sql", help="run a read-only SQL query and print the result")
    parser.add_argument("--config", default="flopledger.yaml", help="path to flopledger.yaml")
    parser.add_argument("--format", choices=["table", "csv", "json"], default="table")
    parser.add_argument("--max-rows", type=int, default=100, help="rows shown as a table")
    parser.add_argument("query", help='SQL, e.g. "SELECT * FROM cost_per_run LIMIT 10"')
    parser.set_defaults(func=sql)


def sql(args: argparse.Namespace) -> int:
    warehouse = open_warehouse(load_config(args.config).warehouse)
    try:
        table = warehouse.read_query(args.query)
    except QueryError as exc:
        print(f"flopledger sql: {str(exc).strip().splitlines()[0]}", file=sys.stderr)
        return 1
    _print(table, args.format, args.max_rows)
    return 0


def _print(table: pa.Table, fmt: str, max_rows: int) -> None:
    import polars as pl

    frame = pl.DataFrame(table)
    if fmt == "csv":
        sys.stdout.write(frame.write_csv())
    elif fmt == "json":
        sys.stdout.write(frame.write_ndjson())
    else:
        with pl.Config(tbl_rows=max_rows, tbl_cols=-1, fmt_str_lengths=60, tbl_width_chars=200):
            print(frame)
