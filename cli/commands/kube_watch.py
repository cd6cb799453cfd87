"""`flopledger kube-watch`: list and watch a cluster's pods into pod lifecycle files.

Long-running (a Deployment in the cluster with in-cluster credentials, or anywhere with a
kubeconfig): it lists every pod, then watches, writing crash-safe `pods-*.jsonl` files into
the spool folder that `sources.kubernetes.paths` reads (collectors/kubernetes/watch.py).
`--once` lists once and exits (a snapshot, like a saved `kubectl get pods -A -o json`).
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path
from types import FrameType
from typing import NamedTuple

from flopledger.clients.network import use_deadlines
from flopledger.settings import ConfigError, load_config


class _Stopped(Exception):
    """SIGTERM arrived."""


class _Settings(NamedTuple):
    out: Path
    kubeconfig: str | None
    context: str | None
    in_cluster: bool
    namespace: str | None


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "kube-watch",
        help="watch a Kubernetes cluster's pods into files (pods as runs)",
        description="List and watch pods through the Kubernetes API and write pod lifecycle "
        "records (crash-safe JSON Lines) for sources.kubernetes; a 410 Gone lists again.",
    )
    p.add_argument(
        "--config", default="flopledger.yaml", help="flopledger.yaml (its sources.kubernetes)"
    )
    p.add_argument("--out", type=Path, help="spool folder (default: sources.kubernetes.spool_dir)")
    p.add_argument("--kubeconfig", help="kubeconfig file (default: the config's, else $KUBECONFIG)")
    p.add_argument("--context", help="kubeconfig context")
    p.add_argument("--in-cluster", action="store_true", help="use the pod's service account")
    p.add_argument("--namespace", help="one namespace (default: every namespace)")
    p.add_argument("--once", action="store_true", help="list once, write, exit")
    p.add_argument("--watch-timeout", type=int, default=300, help="seconds per watch request (300)")
    p.add_argument("--duration", type=float, help="stop after this many seconds (default: run)")
    p.set_defaults(func=run)


def _settings(args: argparse.Namespace) -> _Settings:
    """Options from the command line, else from sources.kubernetes when a config file exists."""
    source = None
    if Path(args.config).is_file():
        config = load_config(args.config)
        source = config.sources.kubernetes
        use_deadlines(config.network.deadline_s, config.network.webhook_deadline_s)
    out = args.out or (Path(source.spool_dir) if source and source.spool_dir else None)
    if out is None:
        raise ConfigError("kube-watch: give --out, or sources.kubernetes.spool_dir in the config")
    return _Settings(
        out=out,
        kubeconfig=args.kubeconfig or (source.kubeconfig if source else None),
        context=args.context or (source.context if source else None),
        in_cluster=args.in_cluster or bool(source and source.in_cluster),
        namespace=args.namespace or (source.namespace if source else None),
    )


def run(args: argparse.Namespace) -> int:
    from flopledger.collectors.kubernetes.client import (
        KubernetesError,
        core_api,
        list_pods,
        watch_pods,
    )
    from flopledger.collectors.kubernetes.watch import PodWatcher

    got = _settings(args)
    namespace = got.namespace
    stop_at = None if args.duration is None else time.monotonic() + args.duration
    stopping = {"now": False}

    def _stop(signum: int, frame: FrameType | None) -> None:
        stopping["now"] = True
        raise _Stopped  # out of a blocking watch read; the watcher flushes on the way out

    previous = signal.signal(signal.SIGTERM, _stop)
    watcher = None
    try:
        api = core_api(got.kubeconfig, got.context, got.in_cluster)
        watcher = PodWatcher(
            lambda: list_pods(api, namespace),
            lambda version: watch_pods(api, version, namespace, args.watch_timeout),
            got.out,
            progress=lambda message: print(f"kube-watch: {message}", file=sys.stderr, flush=True),
            retries=5,  # then exit 2: the Deployment restarts it, and it resumes from its files
        )
        if args.once:
            watcher.relist()
        else:
            watcher.run(
                lambda: stopping["now"] or (stop_at is not None and time.monotonic() >= stop_at)
            )
    except KubernetesError as exc:
        print(f"flopledger kube-watch: {exc}", file=sys.stderr)
        return 2
    except _Stopped:
        if watcher is None:
            return 0
    finally:
        signal.signal(signal.SIGTERM, previous)
    stats = watcher.stats
    print(
        f"kube-watch: {stats.records} pod records in {len(stats.files)} files under {got.out} "
        f"({stats.lists} lists, {stats.watches} watches, {stats.events} events, {stats.gone} expired)"
    )
    return 0
