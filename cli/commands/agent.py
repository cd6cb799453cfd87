"""`flopledger agent`: the per-node NVML agent (see docs/nvml-agent.md)."""

from __future__ import annotations

import argparse
import logging
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flopledger.collectors.nvml.simulated import SCENARIOS
from flopledger.settings import ConfigError

if TYPE_CHECKING:
    from flopledger.collectors.nvml.agent import AgentConfig

DEFAULT_POD_SOCKET = "/var/lib/kubelet/pod-resources/kubelet.sock"
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$")
_UNIT_S = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, None: 1.0}


def duration_s(text: str) -> float:
    """`500ms`, `1s`, `10m`, `7d` or plain seconds -> seconds."""
    match = _DURATION.match(text)
    if match is None:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (e.g. 1s, 500ms, 10m)")
    seconds = float(match.group(1)) * _UNIT_S[match.group(2)]
    if seconds <= 0:
        raise argparse.ArgumentTypeError(f"duration must be positive: {text!r}")
    return seconds


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "agent",
        help="collect NVML counters on this GPU node into a Parquet spool",
        description="Read NVML every interval, write one gpu_samples row per GPU per "
        "minute to atomic Parquet spool files, optionally ship them to Cloud Storage.",
    )
    p.add_argument("--spool", required=True, type=Path, help="spool directory")
    p.add_argument("--interval", type=duration_s, default=1.0, help="sampling interval (1s)")
    p.add_argument("--node-labels", type=Path, help="YAML/JSON: node, project_id, resource_name")
    p.add_argument("--upload", metavar="gs://BUCKET/PREFIX", help="ship closed files here")
    p.add_argument("--simulate", choices=sorted(SCENARIOS), help="use a simulated NVML scenario")
    p.add_argument("--gpus", type=int, default=8, help="simulated GPU count (8)")
    p.add_argument("--duration", type=duration_s, help="stop after this long (default: run)")
    p.add_argument("--rotate", type=duration_s, default=600.0, help="spool file window (10m)")
    p.add_argument("--max-spool-mb", type=float, default=1024.0, help="spool size cap (1024)")
    p.add_argument("--max-spool-age", type=duration_s, default=7 * 86400.0, help="age cap (7d)")
    p.add_argument(
        "--health",
        metavar="[HOST]:PORT",
        help="serve Prometheus /metrics and a liveness /healthz here (e.g. :9464)",
    )
    p.add_argument(
        "--stale-after",
        type=duration_s,
        default=60.0,
        help="/healthz fails when the loop has not ticked for this long (60s)",
    )
    p.add_argument(
        "--pod-resources",
        metavar="SOCKET",
        default=str(DEFAULT_POD_SOCKET),
        help="kubelet PodResources socket, to label minutes by pod ('none': off; "
        f"default {DEFAULT_POD_SOCKET}, ignored when absent)",
    )
    # Test-only: length of a "minute" in seconds, so subprocess tests finish quickly.
    p.add_argument("--minute-seconds", type=int, default=60, help=argparse.SUPPRESS)
    p.set_defaults(func=run)


def _config(args: argparse.Namespace) -> AgentConfig:
    from flopledger.collectors.nvml.agent import AgentConfig
    from flopledger.collectors.nvml.health import parse_address
    from flopledger.collectors.nvml.labels import load_node_labels
    from flopledger.collectors.nvml.spool import SpoolLimits

    try:
        labels = load_node_labels(args.node_labels, use_metadata=args.simulate is None)
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc
    limits = SpoolLimits(
        rotate_s=int(args.rotate),
        max_total_bytes=int(args.max_spool_mb * 2**20),
        max_age_s=int(args.max_spool_age),
    )
    try:
        health_address = parse_address(args.health) if args.health else None
    except ValueError as exc:
        raise ConfigError(f"--health: {exc}") from exc
    return AgentConfig(
        spool_dir=args.spool,
        health_address=health_address,
        stale_after_s=args.stale_after,
        labels=labels,
        interval_s=args.interval,
        duration_s=args.duration,
        upload_uri=args.upload,
        minute_s=args.minute_seconds,
        limits=limits,
    )


def run(args: argparse.Namespace) -> int:
    from flopledger.collectors.nvml.agent import Agent, stop_on_signals
    from flopledger.collectors.nvml.labels import kube_pod_uid
    from flopledger.collectors.nvml.nvml import Nvml, NvmlUnavailable
    from flopledger.collectors.nvml.podresources import PodResolver
    from flopledger.collectors.nvml.upload import Uploader

    logging.getLogger("flopledger.collectors.nvml").setLevel(
        logging.INFO
    )  # health lines always shown
    config = _config(args)
    try:
        uploader = Uploader(args.upload) if args.upload else None
    except ValueError as exc:
        raise ConfigError(f"--upload: {exc}") from exc
    nvml = Nvml(_simulated_backend(args) if args.simulate else None)
    socket = None if args.pod_resources.lower() == "none" else Path(args.pod_resources)
    pods = PodResolver(socket, uid_lookup=kube_pod_uid, background=True)
    stop = threading.Event()
    stop_on_signals(stop)
    try:
        return Agent(config, nvml, uploader=uploader, pods=pods).run(stop)
    except NvmlUnavailable as exc:
        raise ConfigError(str(exc)) from exc


def _simulated_backend(args: argparse.Namespace) -> Any:
    from flopledger.collectors.nvml.simulated import SimulatedNvml

    if args.gpus < 1:
        raise ConfigError("--gpus must be at least 1")
    return SimulatedNvml(args.simulate, gpus=args.gpus)
