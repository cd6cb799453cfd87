"""`flopledger run`: materialise every asset for every day the inputs hold (or a given range)."""

from __future__ import annotations

import argparse
from datetime import date

from settings import ConfigError, load_config


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("run", help="ingest every source and rebuild the marts")
    parser.add_argument("--config", default="flopledger.yaml", help="path to flopledger.yaml")
    parser.add_argument(
        "--from", dest="start", type=date.fromisoformat, help="first UTC day (YYYY-MM-DD)"
    )
    parser.add_argument(
        "--to", dest="end", type=date.fromisoformat, help="last UTC day (YYYY-MM-DD)"
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 when an ERROR check fails")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from cli.run_report import print_report
    from pipelines.runner import run_pipeline

    if args.start and args.end and args.start > args.end:
        raise ConfigError(f"--from {args.start} is after --to {args.end}")
    config = load_config(args.config)
    report = run_pipeline(config, args.config, args.start, args.end)
    print_report(report)
    if not report.succeeded:
        return 1
    if args.strict and report.failed_error_checks:
        return 1
    return 0
