"""`flopledger plan commitments`: how many accelerators to commit to next, per accelerator type
and region, from the last N days of demand (paid + queued accelerator-hours) in the published
snapshot, priced by the accelerator price book (docs/commitments.md)."""

from __future__ import annotations

import argparse
import sys

from flopledger.accelerators.prices import PriceBookError, price_book
from flopledger.cli.arguments import refuse
from flopledger.cli.commitment_plan_lines import plan_lines
from flopledger.models import query_sql
from flopledger.planning.commitment_planner import TERMS, plan_from_warehouse
from flopledger.settings import ConfigError, load_config
from flopledger.warehouse import QueryError, open_warehouse

NEEDS = "commitment_demand_hourly"


def _days(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of days: {text!r}") from None
    if not 1 <= value <= 3660:
        raise argparse.ArgumentTypeError(f"days must be 1 to 3660 (got {value})")
    return value


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("plan", help="plan what to commit to next")
    what = parser.add_subparsers(dest="plan", required=True, metavar="WHAT")
    commitments = what.add_parser(
        "commitments", help="accelerators to commit to, per type and region, from measured demand"
    )
    commitments.add_argument("--config", default="flopledger.yaml", help="path to flopledger.yaml")
    commitments.add_argument(
        "--days", type=_days, help="window of demand, days (default: commitment_plan_days)"
    )
    commitments.add_argument("--term", choices=TERMS, default="1y", help="commitment term")
    commitments.set_defaults(func=plan_commitments)


def plan_commitments(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        return refuse("plan", exc)
    try:
        prices = price_book(config.price_book)
    except PriceBookError as exc:
        print(f"flopledger plan: {exc}", file=sys.stderr)
        return 1
    days = args.days or config.commitment_plan_days
    warehouse = open_warehouse(config.warehouse)
    try:
        named = warehouse.read_query(query_sql("tables_named"), {"table_name": NEEDS})
        if not named.to_pylist()[0]["n"]:
            print(
                f"flopledger plan: no {NEEDS} in {config.warehouse.path} yet: run "
                "`flopledger run` first",
                file=sys.stderr,
            )
            return 1
        rows = plan_from_warehouse(
            lambda sql, params: warehouse.read_query(sql, params).to_pylist(),
            prices,
            (args.term,),
            days,
        )
    except QueryError as exc:
        print(f"flopledger plan: {str(exc).strip().splitlines()[0]}", file=sys.stderr)
        return 1
    if not rows:
        print("flopledger plan: no accelerator demand in the warehouse yet (run `flopledger run`)")
        return 0
    print("\n".join(plan_lines(rows, config.reporting_currency)[1:]))
    return 0
