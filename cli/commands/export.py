"""`flopledger export focus`: the project's own costs as a FOCUS 1.2 cost and usage dataset.

Reads the `focus_costs` mart of the latest published snapshot (every source's rows, allocation
to teams in x_ columns) and writes it as Parquet or CSV under FOCUS's column names, for any
FinOps tool that reads FOCUS. Checked with the FinOps Foundation's focus-validator (tests)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from flopledger.cli.arguments import refuse
from flopledger.collectors.focus.write import ExportError, write_focus
from flopledger.models import query_sql
from flopledger.settings import ConfigError, load_config
from flopledger.warehouse import QueryError, open_warehouse


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("export", help="write the costs in an open format (FOCUS 1.2)")
    parser.add_argument(
        "format", choices=["focus"], help="focus: a FOCUS 1.2 cost and usage dataset"
    )
    parser.add_argument("--config", default="flopledger.yaml", help="path to flopledger.yaml")
    parser.add_argument("--out", required=True, help="FILE.parquet or FILE.csv")
    parser.set_defaults(func=export)


def export(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        return refuse("export", exc)
    try:
        warehouse = open_warehouse(config.warehouse)
        table = warehouse.read_query(query_sql("focus_costs_export"))
        rows = write_focus(table, Path(args.out))
    except (QueryError, ExportError) as exc:
        print(f"flopledger export: {str(exc).strip().splitlines()[0]}", file=sys.stderr)
        return 2
    print(f"wrote {rows:,} FOCUS 1.2 rows to {args.out}")
    return 0
