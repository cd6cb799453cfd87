"""`flopledger simulate`: write a simulated fleet's inputs, a config and the ground truth."""

from __future__ import annotations

import argparse
import sys

from flopledger.cli.arguments import day
from flopledger.simulator import DEFAULT_START, simulate
from flopledger.simulator.billing import BILLING_DETAILS


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "simulate", help="write a simulated fleet's inputs (deterministic by seed)"
    )
    parser.add_argument(
        "--out", required=True, help="folder to write into (its earlier output is replaced)"
    )
    parser.add_argument("--gpus", type=int, default=64, help="GPUs (8 per VM; default 64)")
    parser.add_argument(
        "--tpu-chips", type=int, default=32, help="TPU chips (0: no TPU slices; default 32)"
    )
    parser.add_argument("--days", type=int, default=7, help="UTC days to simulate (default 7)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument(
        "--start",
        type=day,
        default=DEFAULT_START,
        help=f"first UTC day, YYYY-MM-DD (default {DEFAULT_START})",
    )
    parser.add_argument(
        "--no-telemetry",
        dest="telemetry",
        action="store_false",
        help="skip NVML spool files and TPU Monitoring pages (by far the largest output)",
    )
    parser.add_argument(
        "--gke",
        action="store_true",
        help="add a GKE cluster: node pools billed as VMs, pods as runs (MIG slices included), "
        "written as kubectl get pods -o json (sources.kubernetes)",
    )
    parser.add_argument(
        "--aws-gpus",
        type=int,
        default=0,
        metavar="N",
        help="add an AWS segment of N GPUs (p5.48xlarge, every third a p4d.24xlarge) billed as "
        "a FOCUS 1.2 Parquet export with a Compute Savings Plan (sources.focus); default 0: none",
    )
    parser.add_argument(
        "--job-density",
        type=float,
        default=1.0,
        metavar="X",
        help="jobs and the idle gaps between them X times shorter: about X times as many runs, "
        "the idle share about the same (default 1; 2.2 gives a 1,024-GPU, 256-chip month "
        "~20,000 runs)",
    )
    parser.add_argument(
        "--billing-detail",
        choices=BILLING_DETAILS,
        default="standard",
        help="standard (default): GPU, core and RAM rows per VM-hour, one disk row per VM-day; "
        "full: every window hourly plus each VM's boot disk, data disks and their snapshots, "
        "Local SSD, inter-zone and internet traffic and external IP (~4x the rows of GPU VMs)",
    )
    parser.add_argument(
        "--bigquery",
        metavar="ENDPOINT",
        help="also load the billing export into a BigQuery emulator at ENDPOINT (e.g. "
        "http://127.0.0.1:9050, `make bigquery-emulator`) and read it from there",
    )
    parser.set_defaults(func=run)


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    try:
        result = simulate(
            args.out,
            gpus=args.gpus,
            tpu_chips=args.tpu_chips,
            days=args.days,
            seed=args.seed,
            start=args.start,
            telemetry=args.telemetry,
            progress=_progress,
            gke=args.gke,
            aws_gpus=args.aws_gpus,
            job_density=args.job_density,
            billing_detail=args.billing_detail,
        )
    except ValueError as exc:
        print(f"flopledger simulate: {exc}", file=sys.stderr)
        return 2
    if args.bigquery and _load_bigquery(result, args.bigquery) != 0:
        return 2
    totals = result.totals
    print(
        f"wrote {result.out_dir}: {result.runs:,} runs, {result.billing_rows:,} billing rows in "
        f"{result.billing_files:,} files, {result.gpu_rows:,} GPU spool rows, {result.tpu_points:,} TPU points "
        f"({result.seconds:.1f} s)"
    )
    print(
        f"truth: billed {totals['billed_usd']} USD, credits {totals['credits_usd']} USD, "
        f"effective {totals['effective_usd']} USD over {totals['distinct_rows']:,} distinct rows"
    )
    print(f"config: {result.config_path}")
    return 0


def _load_bigquery(result, endpoint: str) -> int:
    from flopledger.clients.bigquery import BigQueryError
    from flopledger.simulator.bigquery import DEMO_TABLE, load_export, read_from_bigquery

    try:
        files = load_export(result.out_dir / "billing", endpoint, progress=_progress)
        read_from_bigquery(result.config_path, endpoint)
    except (BigQueryError, ValueError) as exc:
        print(f"flopledger simulate: --bigquery {endpoint}: {exc}", file=sys.stderr)
        return 2
    print(f"bigquery: {files:,} extract files loaded into {DEMO_TABLE} at {endpoint}")
    return 0
