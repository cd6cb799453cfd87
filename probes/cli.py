"""Command line of the probe: `flopledger probe ...` and `python -m flopledger.probes ...` share it.

The parser imports no JAX; `run` imports the sweep (and JAX) only when a sweep starts.
Exit codes: 0 every shape verified, 1 a shape failed verification or errored, 2 bad arguments.
"""

from __future__ import annotations

import argparse
import socket
import sys
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from flopledger.probes.dtypes import probe_dtype
from flopledger.probes.report import progress_line, summary_lines
from flopledger.probes.results import ProbeResult, append_jsonl, write_jsonl
from flopledger.probes.shapes import Shape, default_shapes, parse_shapes
from flopledger.probes.timing import TimingPolicy

if TYPE_CHECKING:
    from flopledger.probes.sweep import SweepConfig

_BUDGET_S = {"quick": 0.3, "full": 1.0}  # timed seconds per shape


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The probe's options, on a parser someone else made (the flopledger CLI) or our own."""
    parser.add_argument(
        "--dtype",
        default="auto",
        help="comma list of bf16,fp16,tf32,fp32 (default: bf16 on GPU/TPU, fp32 on CPU)",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--quick",
        dest="mode",
        action="store_const",
        const="quick",
        help="a few shapes, short timing (under a minute on a CPU)",
    )
    mode.add_argument(
        "--full", dest="mode", action="store_const", const="full", help="the whole sweep (default)"
    )
    parser.set_defaults(mode="full")
    parser.add_argument(
        "--shapes", help="override the shape set: MxNxK[,MxNxK...] (S alone means SxSxS)"
    )
    parser.add_argument(
        "--out",
        default=None,
        help="JSONL file to append to ('-' for stdout; default: probe_results-YYYY-MM-DD.jsonl, "
        "the UTC day the sweep starts, so that a day's pipeline run reads that day's file)",
    )
    parser.add_argument(
        "--node", default=None, help="node name in the results (default: this host's name)"
    )
    parser.add_argument(
        "--device",
        type=int,
        default=0,
        help="index of the device among those JAX sees (default: 0)",
    )
    parser.add_argument(
        "--seconds-per-shape",
        type=float,
        default=None,
        help="timed seconds per shape (default: 0.3 quick, 1.0 full)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs")


def _config(args: argparse.Namespace, backend: str) -> SweepConfig:
    from flopledger.probes.sweep import SweepConfig

    dtypes: tuple[str, ...] = ("fp32",) if backend == "cpu" else ("bf16",)
    if args.dtype != "auto":
        dtypes = tuple(probe_dtype(d).name for d in args.dtype.split(",") if d.strip())
    shapes: tuple[Shape, ...] = (
        parse_shapes(args.shapes) if args.shapes else default_shapes(args.mode, backend)
    )
    budget_s = (
        args.seconds_per_shape if args.seconds_per_shape is not None else _BUDGET_S[args.mode]
    )
    policy = TimingPolicy(budget_s=budget_s, min_samples=3 if args.mode == "quick" else 5)
    return SweepConfig(
        dtypes, shapes, args.node or socket.gethostname(), args.device, policy, seed=args.seed
    )


def default_out(day: date) -> str:
    """The file a sweep started on `day` (UTC) appends to when --out is not given."""
    return f"probe_results-{day.isoformat()}.jsonl"


def _writer(out: str) -> Callable[[ProbeResult], None]:
    """Each result written as soon as it is measured: a sweep cut short keeps what it measured."""

    def write(result: ProbeResult) -> None:
        if out == "-":
            write_jsonl([result], sys.stdout)
        else:
            append_jsonl([result], Path(out))

    return write


def run(args: argparse.Namespace) -> int:
    """Run the sweep: JSONL to --out, progress to stderr, the summary to stdout (stderr with --out -)."""
    from flopledger.probes.kernels import backend_of, pick_device
    from flopledger.probes.sweep import run_sweep

    try:
        config = _config(args, backend_of(pick_device(args.device)))
    except ValueError as exc:
        print(f"probe: {exc}", file=sys.stderr)
        return 2
    if args.out is None:
        args.out = default_out(datetime.now(UTC).date())
    write = _writer(args.out)

    def progress(index: int, total: int, result: ProbeResult) -> None:
        write(result)
        print(progress_line(index, total, result), file=sys.stderr, flush=True)

    results = run_sweep(config, progress=progress)
    summary = sys.stderr if args.out == "-" else sys.stdout
    for line in summary_lines(results):
        print(line, file=summary)
    if args.out != "-":
        print(f"wrote {len(results)} results to {args.out}", file=sys.stderr)
    return 0 if all(r.verified for r in results) else 1


def main(argv: list[str] | None = None) -> int:
    """`python -m flopledger.probes`: the same options as `flopledger probe`."""
    parser = argparse.ArgumentParser(
        prog="python -m flopledger.probes",
        description="Calibrated, verified matmul sweep (achieved TFLOP/s).",
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))
