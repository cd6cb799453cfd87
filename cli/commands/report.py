"""`flopledger report month`: the month-close report (reports/): invoice reconciliation, the
books' split, chargeback, top runs, movers, budgets and alerts, as CSV files and one HTML page.
A rerun after late rows writes a revision; one with nothing changed writes nothing."""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path

from reports.month import ReportError, parse_month, read_month, write_month
from settings import ConfigError, load_config
from warehouse import QueryError, open_warehouse

NEEDS = "team_chargeback"


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("report", help="write reports finance can forward")
    what = parser.add_subparsers(dest="report", required=True, metavar="WHAT")
    month = what.add_parser(
        "month", help="the month-close report: CSV files and one self-contained HTML page"
    )
    month.add_argument("--config", default="flopledger.yaml", help="path to flopledger.yaml")
    month.add_argument("--month", required=True, help="the invoice month, YYYY-MM (e.g. 2026-10)")
    month.add_argument("--out", help="folder to write into (default: month_report.out)")
    month.set_defaults(func=report_month)


def report_month(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config)
        month = parse_month(args.month)
    except (ConfigError, ReportError) as exc:
        print(f"flopledger report: {exc}", file=sys.stderr)
        return 1
    out = Path(args.out) if args.out else Path(config.month_report.out)
    warehouse = open_warehouse(config.warehouse)
    try:
        from models import query_sql

        named = warehouse.read_query(query_sql("tables_named"), {"table_name": NEEDS})
        if not named.to_pylist()[0]["n"]:
            print(
                f"flopledger report: no {NEEDS} in {config.warehouse.path} yet: run "
                "`flopledger run` first",
                file=sys.stderr,
            )
            return 1
        report = read_month(lambda sql, p: warehouse.read_query(sql, p).to_pylist(), month)
    except QueryError as exc:
        print(f"flopledger report: {str(exc).strip().splitlines()[0]}", file=sys.stderr)
        return 1
    if not report.invoice and not report.chargeback:
        print(
            f"flopledger report: no billing rows for {report.key} in the warehouse", file=sys.stderr
        )
        return 1
    try:
        written = write_month(report, out, datetime.now(UTC).replace(tzinfo=None))
    except (ReportError, OSError) as exc:
        print(f"flopledger report: {exc}", file=sys.stderr)
        return 1
    if written.status == "unchanged":
        print(f"{report.key}: unchanged since revision {written.revision}: {written.page}")
    else:
        print(
            f"{report.key}: {'revision' if written.status == 'revised' else 'report'} "
            f"{written.revision} written to {written.folder}"
        )
        for c in written.changes:
            before = "-" if c["before"] is None else f"{c['before']:,.2f}"
            after = "-" if c["after"] is None else f"{c['after']:,.2f}"
            print(f"  changed: {c['figure']}: {before} -> {after} ({c['change']:+,.2f})")
        print(f"  page: {written.page}")
    print(
        f"  invoice {report.invoice_total():,.2f} USD; chargeback {report.chargeback_total():,.2f} USD"
    )
    return 0
