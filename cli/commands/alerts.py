"""`flopledger alerts`: the open alerts (what the notifier would send), for a human on call.

Exit code 0 whether or not alerts are open; 1 only when there is no warehouse to read.
"""

from __future__ import annotations

import argparse
import sys

from flopledger.budgets.alerts import all_alerts
from flopledger.budgets.delivery_store import DeliveryStore
from flopledger.budgets.notify import delivered_at, undelivered
from flopledger.cli.alert_lines import alert_line
from flopledger.settings import load_config
from flopledger.warehouse import open_warehouse


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("alerts", help="list open alerts (what the notifier would send)")
    parser.add_argument("--config", default="flopledger.yaml", help="path to flopledger.yaml")
    parser.add_argument(
        "--all", action="store_true", help="every alert ever raised, delivered or not"
    )
    parser.set_defaults(func=alerts)


def alerts(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    warehouse, store = open_warehouse(config.warehouse), DeliveryStore.of(config)
    if not warehouse.exists():
        print("flopledger alerts: no warehouse yet (run `flopledger run` first)", file=sys.stderr)
        return 1
    rows = all_alerts(warehouse) if args.all else undelivered(warehouse, store)
    if not rows:
        print("no open alerts" if not args.all else "no alerts raised")
        return 0
    print(f"{len(rows)} {'alert(s)' if args.all else 'open alert(s)'}:")
    sent_at = delivered_at(rows, store)
    for row in rows:
        when = sent_at.get(row["alert_id"])
        print(alert_line(row) + ("" if when is None else f"  (sent {when:%Y-%m-%d %H:%M})"))
    return 0
