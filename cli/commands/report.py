"""`flopledger report month`: the month-close report (reports/): invoice reconciliation, the
books' split, chargeback, top runs, movers, budgets and alerts, as CSV files and one HTML page.
A rerun after late rows writes a revision; one with nothing changed writes nothing. A month not
closed yet (`month_report.settle_days` after its end) is refused unless `--provisional`, which
writes a page marked provisional outside the month's revisions."""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, date, datetime
from pathlib import Path

from flopledger.cli.arguments import refuse
from flopledger.reports.month import (
    MonthReport,
    ReportError,
    Written,
    closes_at,
    parse_month,
    read_month,
    write_month,
    write_provisional,
)
from flopledger.settings import ConfigError, load_config
from flopledger.warehouse import QueryError, open_warehouse

NEEDS = "team_chargeback"


def wall_clock() -> datetime:
    """The command's clock (UTC, naive): whether a month has closed, when a page was written."""
    return datetime.now(UTC).replace(tzinfo=None, microsecond=0)


def _month(text: str) -> date:
    """--month: YYYY-MM; anything else (a month 13, a year 0) refused in one line, exit 2."""
    try:
        return parse_month(text)
    except ReportError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("report", help="write reports finance can forward")
    what = parser.add_subparsers(dest="report", required=True, metavar="WHAT")
    month = what.add_parser(
        "month", help="the month-close report: CSV files and one self-contained HTML page"
    )
    month.add_argument("--config", default="flopledger.yaml", help="path to flopledger.yaml")
    month.add_argument(
        "--month", required=True, type=_month, help="the invoice month, YYYY-MM (e.g. 2026-10)"
    )
    month.add_argument("--out", help="folder to write into (default: month_report.out)")
    month.add_argument(
        "--provisional",
        action="store_true",
        help="a month not closed yet: write a page marked provisional into "
        "<out>/<YYYY-MM>/provisional/, not a revision of the month's report",
    )
    month.set_defaults(func=report_month)


def report_month(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        return refuse("report", exc)
    month = args.month
    out = Path(args.out) if args.out else Path(config.month_report.out)
    now = wall_clock()
    closes = closes_at(month, config.month_report.settle_days)
    provisional = now < closes
    if provisional and not args.provisional:
        print(
            f"flopledger report: {month:%Y-%m} is not closed until {closes:%Y-%m-%d %H:%M} UTC "
            f"(month_report.settle_days: {config.month_report.settle_days}); pass --provisional "
            "for a provisional page",
            file=sys.stderr,
        )
        return 1
    warehouse = open_warehouse(config.warehouse)
    try:
        from flopledger.models import query_sql

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
        if provisional:
            written = write_provisional(report, out, now, closes)
        else:
            written = write_month(report, out, now)
    except (ReportError, OSError) as exc:
        print(f"flopledger report: {exc}", file=sys.stderr)
        return 1
    if written.status == "provisional":
        print(
            f"{report.key}: PROVISIONAL (not closed until {closes:%Y-%m-%d %H:%M} UTC) written "
            f"to {written.folder}; not a revision"
        )
        print(f"  page: {written.page}")
    else:
        print("\n".join(written_lines(report, written)))
    print(
        f"  invoice {report.invoice_total():,.2f} USD; chargeback {report.chargeback_total():,.2f} USD"
    )
    return 0


def written_lines(report: MonthReport, written: Written) -> list[str]:
    """What writing a closed month's report did: unchanged, or the report or revision written,
    why (a revision) and what changed."""
    if written.status == "unchanged":
        return [f"{report.key}: unchanged since revision {written.revision}: {written.page}"]
    lines = [
        f"{report.key}: {'revision' if written.status == 'revised' else 'report'} "
        f"{written.revision} written to {written.folder}"
    ]
    lines += [f"  why: {why}" for why in written.why]
    for c in written.changes:
        before = "-" if c["before"] is None else f"{c['before']:,.2f}"
        after = "-" if c["after"] is None else f"{c['after']:,.2f}"
        lines.append(f"  changed: {c['figure']}: {before} -> {after} ({c['change']:+,.2f})")
    return [*lines, f"  page: {written.page}"]
