"""`flopledger run`: materialise every asset for every day the inputs hold (or a given range)."""

from __future__ import annotations

import argparse
from datetime import date

from flopledger.cli.arguments import day
from flopledger.settings import ConfigError, load_config


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("run", help="ingest every source and rebuild the marts")
    parser.add_argument("--config", default="flopledger.yaml", help="path to flopledger.yaml")
    parser.add_argument("--from", dest="start", type=day, help="first UTC day (YYYY-MM-DD)")
    parser.add_argument("--to", dest="end", type=day, help="last UTC day (YYYY-MM-DD)")
    parser.add_argument(
        "--full",
        action="store_true",
        help="rebuild every mart whole, not only what changed (the reference an incremental "
        "warehouse equals)",
    )
    parser.add_argument(
        "--telemetry",
        action="store_true",
        help="the hourly telemetry tick by hand: load only the GPU and TPU samples, then "
        "rebuild only the marts they feed (the telemetry_hourly schedule's run)",
    )
    parser.add_argument(
        "--samples-only",
        action="store_true",
        help="with --telemetry: load the samples and build no marts (the telemetry_hourly ticks "
        "between its marts ticks, schedules.telemetry_marts_every_hours)",
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 when an ERROR check fails")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="run nothing: print the bytes each BigQuery query would scan (BigQuery's dry run)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from flopledger.cli.run_report import print_report
    from flopledger.pipelines.runner import run_pipeline

    if args.start and args.end and args.start > args.end:
        raise ConfigError(f"--from {args.start} is after --to {args.end}")
    if args.samples_only and not args.telemetry:
        raise ConfigError("--samples-only is a telemetry run's: give --telemetry too")
    config = load_config(args.config)
    if args.dry_run:
        return _dry_run(config, args.start)
    report = run_pipeline(
        config,
        args.config,
        args.start,
        args.end,
        full=args.full,
        telemetry=args.telemetry,
        marts=not args.samples_only,
    )
    print_report(report)
    if not report.succeeded or report.marts_not_rebuilt:
        return 1  # a failed step, or marts a failed blocking check kept from the previous run
    if args.strict and report.failed_error_checks:
        return 1
    return 0


def _dry_run(config, first_day: date | None) -> int:
    from datetime import UTC, datetime

    from flopledger.collectors.gcp_billing.bigquery import FOREVER, NEVER
    from flopledger.ingest.gcp_billing.export import dry_run_scans
    from flopledger.warehouse import open_warehouse

    today = datetime.now(UTC).date()  # the command's edge: the wall clock, as a run's
    # A BigQuery failure (no credentials, a refused query) is cli.main's one line, exit 2.
    found = dry_run_scans(config, open_warehouse(config.warehouse), first_day, today)
    if found is None:
        print(
            "dry run: no BigQuery source configured (sources.gcp_billing.bigquery); files cost nothing to read"
        )
        return 0
    read, scans = found
    start = "the start" if read.export_from == NEVER else read.export_from
    until = "" if read.export_until == FOREVER else f" to {read.export_until} (taken so far)"
    print(
        f"dry run: {read.table}, partitions from {read.since_day}, export_time from "
        f"{start}{until}; each query refused past {read.max_bytes_billed:,} bytes"
    )
    for name, scanned in scans.items():
        print(f"  {name}: would scan {scanned:,} bytes ({scanned / 2**30:.3f} GiB)")
    return 0
