"""`flopledger restate --from DAY`: history moves on purpose, and says so.

A settings change in flopledger.yaml takes effect from the first day of the open month
(ingest/settings_history.py). To apply the config to earlier days too, this command: says what
it will change (each setting's values from DAY on and the config's; the months and tables
rebuilt, which of the months are closed), asks unless --yes, makes the config's values those in
force from DAY on (settings_history, reason `restate --from DAY`), records itself (restatements),
rebuilds the marts from DAY
to the newest day loaded (no ingest), and writes a revision of each closed month's report whose
figures changed (reports/month.py; the revision gives the restatement as its reason). A month
closed but never reported is left to `flopledger report month`.
"""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path

from flopledger.cli.arguments import day
from flopledger.settings import ConfigError, load_config

ABORTED = 1


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "restate", help="apply flopledger.yaml's settings from a day on, closed months included"
    )
    parser.add_argument("--config", default="flopledger.yaml", help="path to flopledger.yaml")
    parser.add_argument(
        "--from",
        dest="start",
        metavar="DAY",
        required=True,
        type=day,
        help="first UTC day the config's settings apply to (YYYY-MM-DD)",
    )
    parser.add_argument("--yes", action="store_true", help="do it without asking")
    parser.set_defaults(func=restate)


def _months(first: date, last: date) -> list[date]:
    from flopledger.reports.month import next_month

    months, month = [], first.replace(day=1)
    while month <= last:
        months.append(month)
        month = next_month(month)
    return months


def rebuilt_tables() -> tuple[list[str], list[str]]:
    """The models that read settings_history, and the models built from them (by lineage)."""
    from flopledger import models
    from flopledger.ingest.settings_history import HISTORY

    direct = [m.name for m in models.marts() if HISTORY in m.depends_on]
    reached, after = set(direct), []
    for m in models.marts():  # dependency order: a model's inputs come before it
        if m.name not in reached and reached & set(m.depends_on):
            reached.add(m.name)
            after.append(m.name)
    return direct, after


def plan_lines(changes: list, start: date, newest: date, closed: list[date], months: list[date]):
    direct, after = rebuilt_tables()
    lines = [f"restate from {start} through {newest} (the newest day loaded):"]
    if changes:
        lines.append(f"  settings from {start} on (now -> the config's):")
        lines += [f"    {c.describe()}" for c in changes]
    else:
        lines.append("  settings: already the config's from that day on; the days are rebuilt")
    lines.append(
        "  months: "
        + ", ".join(f"{m:%Y-%m} ({'closed' if m in closed else 'open'})" for m in months)
    )
    if closed:
        lines.append("  closed months whose figures change get a revision of their month report")
    lines.append(
        f"  tables rebuilt from {start}: {', '.join(direct)}, and the {len(after)} built from "
        f"them ({', '.join(after[:6])}{', ...' if len(after) > 6 else ''})"
    )
    return lines


def _confirmed() -> bool:
    try:
        return input("restate? [y/N] ").strip().lower() in ("y", "yes")
    except EOFError:  # no terminal to answer: never a yes
        return False


def restate(args: argparse.Namespace) -> int:
    from flopledger.cli.commands.report import wall_clock
    from flopledger.cli.run_report import print_report
    from flopledger.ingest import settings_history as history
    from flopledger.pipelines.runner import run_pipeline
    from flopledger.reports.month import closes_at
    from flopledger.warehouse import open_warehouse

    config = load_config(args.config)
    warehouse = open_warehouse(config.warehouse)
    warehouse.ensure_schema()
    last = history.newest_day(warehouse)
    if last is None:
        raise ConfigError(f"nothing loaded in {warehouse.where()} yet: run `flopledger run` first")
    if args.start > last:
        raise ConfigError(f"--from {args.start} is after the newest day loaded, {last}")
    now = wall_clock()
    settings = history.config_settings(config)
    rows = history.read_history(warehouse)
    keys = history.differing_from(rows, settings, args.start)
    changes, _ = history.plan(rows, settings, args.start, keys)
    months = _months(args.start, last)
    closed = [m for m in months if closes_at(m, config.month_report.settle_days) <= now]
    print("\n".join(plan_lines(changes, args.start, last, closed, months)))
    if not args.yes and not _confirmed():
        print("flopledger restate: nothing changed", file=sys.stderr)
        return ABORTED
    reason = f"restate --from {args.start}"
    cause = reason + (": " + "; ".join(c.describe() for c in changes) if changes else "")
    history.restate(warehouse, settings, args.start, now, reason)
    _record(warehouse, args.start, last, now, changes)
    # The day itself marked changed: the models reading the settings rebuild from it onward
    # (their grain's `onward settings_history`), even where no setting's value moved.
    warehouse.record_changes(history.HISTORY, [args.start])
    report = run_pipeline(config, args.config, args.start, last, now=now, cause=cause, ingest=False)
    print_report(report)
    if not report.succeeded or report.marts_not_rebuilt:
        return 1
    return _revise(config, warehouse, closed, now)


def _record(warehouse, start: date, last: date, now, changes: list) -> None:
    """The restatement's own row (restatements), before the rebuild: the snapshot holds it."""
    import pyarrow as pa

    row = {
        "restatement_id": f"restate --from {start} @ {now.isoformat()}",
        "restated_at": now,
        "from_day": start,
        "through_day": last,
        "settings_changed": "; ".join(c.describe() for c in changes) or None,
    }
    schema = pa.schema(
        [
            ("restatement_id", pa.string()),
            ("restated_at", pa.timestamp("us")),
            ("from_day", pa.date32()),
            ("through_day", pa.date32()),
            ("settings_changed", pa.string()),
        ]
    )
    warehouse.insert_new(
        "restatements", pa.Table.from_pylist([row], schema=schema), "restatement_id"
    )


def _revise(config, warehouse, closed: list[date], now) -> int:
    """A revision of each closed month's report whose figures changed."""
    from flopledger.cli.commands.report import written_lines
    from flopledger.reports.month import MANIFEST, read_month, write_month

    out = Path(config.month_report.out)
    for month in closed:
        if not (out / f"{month:%Y-%m}" / MANIFEST).is_file():
            print(
                f"{month:%Y-%m}: not reported yet; `flopledger report month --month "
                f"{month:%Y-%m}` writes it"
            )
            continue
        report = read_month(lambda sql, p: warehouse.read_query(sql, p).to_pylist(), month)
        print("\n".join(written_lines(report, write_month(report, out, now))))
    return 0
