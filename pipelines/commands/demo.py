"""`flopledger demo`: simulate a small fleet into ./demo and run the whole pipeline on it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

DEMO = {"gpus": 48, "tpu_chips": 24, "days": 5, "seed": 1}


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("demo", help="simulate a small fleet and run the pipeline on it")
    parser.add_argument("--out", default="demo", help="folder for the demo's inputs and warehouse (default ./demo)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pipelines.config import load_config
    from pipelines.runner import run_pipeline
    from pipelines.simulator import simulate

    print(f"simulating {DEMO['gpus']} GPUs and {DEMO['tpu_chips']} TPU chips for {DEMO['days']} days "
          f"into {args.out}/", file=sys.stderr, flush=True)
    result = simulate(Path(args.out), **DEMO)
    config = load_config(result.config_path)
    report = run_pipeline(config, result.config_path)
    report.print()
    truth = result.totals
    print(f"\nsimulator's own totals: effective {truth['effective_usd']} USD over {truth['distinct_rows']:,} rows "
          f"(ground truth in {result.out_dir / 'truth'})")
    return 0 if report.succeeded else 1
