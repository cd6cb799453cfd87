"""`flopledger probe`: calibrated, verified matmul sweep on this node (see docs/probes.md).

The options and the run live in `probes.cli` (shared with `python -m flopledger.probes`); JAX is
imported only when the command runs.
"""

from __future__ import annotations

import argparse
from typing import Any

from flopledger.probes.cli import add_arguments, run


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "probe",
        help="measure this node's achieved matmul TFLOP/s (verified), write probe_results JSONL",
        description="MAMF-style matmul sweep on whatever JAX sees; results appended as JSONL.",
    )
    add_arguments(parser)
    parser.set_defaults(func=run)
