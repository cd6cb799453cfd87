"""`flopledger doctor --config FILE`: whether a deployment is healthy, one line per check.

Checks: the config is valid; each configured source's paths match files (local or gs://:
an unreachable bucket or a path matching nothing is unhealthy); Google credentials can be
found where the config needs them (a BigQuery warehouse or export, a gs:// path, the
Monitoring API; none needed is fine); the warehouse and its size; the readers' snapshot is
no older than the last marts run that published it; whether the published alerts reach their
channels (a failing post is unhealthy, one not yet tried a note); each job's last run (a
failed last run is unhealthy); the daemon. What a deployment run only with `flopledger run` lacks (no daemon,
no schedules, no cloud) and old data are notes, never unhealthy. Exit 0 healthy, 1 not (2: the
config cannot be read); `--json` writes the same as one JSON object, and `--serve HOST:PORT`
answers it at /healthz until stopped (cli/doctor_server.py), as the agent's /healthz does.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from flopledger.cli.main import version
from flopledger.settings import Config, ConfigError, load_config

Check = tuple[str, str, str]  # (what, ok | note | fail, one line)
# A snapshot this much older than the marts run that published it was not published by it.
SNAPSHOT_SLACK_S = 120
EMULATORS = {"storage": "STORAGE_EMULATOR_HOST", "bigquery": "BIGQUERY_EMULATOR_HOST"}


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("doctor", help="say whether this deployment is healthy")
    parser.add_argument("--config", default="flopledger.yaml", help="path to flopledger.yaml")
    parser.add_argument("--json", action="store_true", help="one JSON object, not lines")
    parser.add_argument(
        "--serve",
        type=address,
        metavar="HOST:PORT",
        help="serve the same as --json at http://HOST:PORT/healthz (200 healthy, 503 not), "
        "checked every --every seconds, until stopped; e.g. 127.0.0.1:8790",
    )
    parser.add_argument(
        "--every", type=float, default=60.0, help="seconds between checks with --serve (60)"
    )
    parser.set_defaults(func=doctor)


def address(text: str) -> tuple[str, int]:
    """HOST:PORT for --serve (argparse says the error)."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(f"not HOST:PORT: {text!r} (e.g. 127.0.0.1:8790)")
    return host, int(port)


def report(found: list[Check]) -> dict[str, Any]:
    """The checks as one object: what --json prints and --serve answers."""
    return {
        "healthy": not any(state == "fail" for _, state, _ in found),
        "checks": [{"check": c, "status": s, "detail": d} for c, s, d in found],
    }


def _sources(config: Config) -> Iterator[tuple[str, list[str]]]:
    for name in type(config.sources).model_fields:
        source = getattr(config.sources, name)
        if source is not None and getattr(source, "paths", None):
            yield name, list(source.paths)


def _source_checks(config: Config, google: bool) -> Iterator[Check]:
    """Each source's paths listed (`google`: whether gs:// may be listed, credentials found)."""
    from flopledger.collectors.gcs import StorageError
    from flopledger.ingest.inputs import pattern_listing

    for name, paths in _sources(config):
        remote = any(p.startswith("gs://") for p in paths)
        if remote and not google:
            yield f"sources.{name}", "note", "not listed: no Google credentials (see below)"
            continue
        try:
            listing = pattern_listing(config, paths, None)
        except StorageError as exc:
            yield f"sources.{name}", "fail", f"cannot list its inputs: {exc}"
            continue
        if not listing.objects:
            yield f"sources.{name}", "fail", f"{', '.join(paths)} match no file"
        else:
            yield f"sources.{name}", "ok", f"{len(listing.objects):,} file(s)"


def _needs_google(config: Config) -> list[str]:
    """What in the config calls Google (not a local emulator)."""
    needs = []
    w = config.warehouse
    if w.kind == "bigquery" and not (w.endpoint or os.environ.get(EMULATORS["bigquery"])):
        needs.append("warehouse (BigQuery)")
    billing = config.sources.gcp_billing
    export = billing.bigquery if billing is not None else None
    if export is not None and not (export.endpoint or os.environ.get(EMULATORS["bigquery"])):
        needs.append("sources.gcp_billing.bigquery")
    monitoring = config.sources.cloud_monitoring
    if monitoring is not None and monitoring.project_id and not monitoring.endpoint:
        needs.append("sources.cloud_monitoring (the API)")
    remote = [n for n, paths in _sources(config) if any(p.startswith("gs://") for p in paths)]
    if remote and not os.environ.get(EMULATORS["storage"]):
        needs += [f"sources.{n} (gs://)" for n in remote]
    return needs


def _credential_check(config: Config) -> Check:
    needs = _needs_google(config)
    if not needs:
        return (
            "credentials",
            "note",
            "no Google credentials needed (nothing configured calls Google)",
        )
    from flopledger.clients.google_auth import credentials_problem

    problem = credentials_problem()
    if problem:
        return "credentials", "fail", f"{problem}; needed by {', '.join(needs)}"
    return "credentials", "ok", f"application-default credentials found, for {', '.join(needs)}"


def _warehouse_checks(config: Config, now_s: float, google: bool) -> Iterator[Check]:
    from flopledger.pipelines.health import last_publish_s
    from flopledger.warehouse import open_warehouse

    if config.warehouse.kind == "bigquery" and not google:
        yield "warehouse", "note", "not read: no Google credentials (see above)"
        return
    warehouse = open_warehouse(config.warehouse)
    if not warehouse.exists():
        yield "warehouse", "note", "no warehouse yet: `flopledger run` makes it"
        return
    snapshot: Path | None = getattr(warehouse, "snapshot_path", None)
    if config.warehouse.kind == "duckdb":
        size = Path(config.warehouse.path).stat().st_size
        yield "warehouse", "ok", f"{config.warehouse.path}: {size / 2**20:,.1f} MiB"
    else:
        yield "warehouse", "ok", f"BigQuery {config.warehouse.project}.{config.warehouse.dataset}"
    yield _schema_check(warehouse)
    published = last_publish_s(config)
    if snapshot is not None:
        if not snapshot.exists():
            state = "fail" if published else "note"
            yield "snapshot", state, f"{snapshot} not published yet (the marts job publishes it)"
        else:
            written = snapshot.stat().st_mtime
            age = f"published {(now_s - written) / 3600:,.1f} h ago"
            if published is not None and written < published - SNAPSHOT_SLACK_S:
                yield (
                    "snapshot",
                    "fail",
                    (
                        f"{snapshot} is older than the last marts run ({age}): its publish "
                        "failed, readers see old figures; run `flopledger run` again"
                    ),
                )
            else:
                yield "snapshot", "ok", age
    yield _alert_check(config, warehouse)
    yield from _data_age(warehouse)


def _alert_check(config: Config, warehouse: Any) -> Check:
    """Whether the alerts reach anyone: those the published snapshot holds that a channel has
    not had (budgets/notify.py), and any whose last post failed (a webhook gone, a URL unset
    is a note: the daemon may not run here)."""
    from flopledger.budgets.delivery_store import DeliveryStore
    from flopledger.budgets.notify import pending
    from flopledger.warehouse import NoWarehouse

    reader = warehouse.reader()
    try:
        waiting = pending(reader, DeliveryStore.of(config))
    except NoWarehouse:
        return "alerts", "note", "none published yet"
    finally:
        reader.close()
    if not waiting:
        return "alerts", "ok", "every alert published has reached its channels"
    failing = sorted(
        (name, record["last_error"])
        for _, channels in waiting
        for name, record in channels.items()
        if record.get("last_error") and not record.get("delivered_at")
    )
    if failing:
        name, error = failing[-1]
        return (
            "alerts",
            "fail",
            f"{len(failing)} delivery(ies) failing, to {name}: {error} (`flopledger alerts`)",
        )
    return (
        "alerts",
        "note",
        f"{len(waiting)} alert(s) not yet delivered (dagster-daemon's alert_notifier sends them; "
        "`flopledger alerts` lists them)",
    )


def _schema_check(warehouse: Any) -> Check:
    """The raw tables against this version's (`flopledger upgrade` says the changes)."""
    from flopledger.warehouse import WarehouseLocked

    try:
        plan = warehouse.upgrade_plan()
    except WarehouseLocked:
        return "schema", "note", "not compared: a run is writing the warehouse"
    if plan is None:
        return "schema", "note", "not compared on BigQuery (the next run adds new columns)"
    if plan.retyped:
        return "schema", "fail", f"{plan.to_do()[-1]} (`flopledger upgrade` lists all)"
    if plan.to_do():
        return (
            "schema",
            "note",
            f"{len(plan.to_do())} change(s) for the next run to make "
            "(`flopledger upgrade` lists them; `--apply` makes them now)",
        )
    return "schema", "ok", "the raw tables are this version's"


def _data_age(warehouse: Any) -> Iterator[Check]:
    try:
        table = warehouse.read_query("SELECT max(usage_day) AS day FROM billing_line_items")
        newest = table.column("day")[0].as_py()
    except Exception as exc:  # noqa: BLE001 - a note, whatever the reader says
        yield "data", "note", f"newest billing day unknown ({str(exc).splitlines()[0][:120]})"
        return
    yield "data", "note", f"billing data through {newest}" if newest else "no billing rows yet"


def checks(config_path: str) -> list[Check]:
    """Every check, in order; a config that cannot be read is the only one then."""
    try:
        config = load_config(config_path, warn=False)
    except ConfigError as exc:
        return [("config", "fail", line) for line in str(exc).splitlines()]
    now_s = time.time()
    credentials = _credential_check(config)
    google = credentials[1] != "fail"
    found = [("config", "ok", f"{config_path} is valid ({version()})")]
    groups = [
        ("sources", lambda: _source_checks(config, google)),
        ("credentials", lambda: iter([credentials])),
        ("warehouse", lambda: _warehouse_checks(config, now_s, google)),
        ("dagster_home", lambda: _instance_checks(config, now_s)),
    ]
    for name, group in groups:
        try:
            found += group()
        except Exception as exc:  # noqa: BLE001 - a check that breaks is a failed check
            text = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
            found.append((name, "fail", f"{exc.__class__.__name__}: {text}"))
    return found


def _instance_checks(config: Config, now_s: float) -> Iterator[Check]:
    from flopledger.pipelines.health import instance_checks

    return instance_checks(config, now_s)


def serve(args: argparse.Namespace) -> int:
    """Answer /healthz until SIGTERM or ^C (cli/doctor_server.py)."""
    from flopledger.cli.doctor_server import DoctorServer

    if args.every <= 0:
        raise ConfigError(f"--every {args.every:g}: must be more than 0 seconds")
    host, port = args.serve
    try:
        server = DoctorServer(args.serve, lambda: report(checks(args.config)), args.every)
    except OSError as exc:  # the port taken, an address not of this machine
        print(
            f"flopledger doctor: cannot serve on {host}:{port}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return 2
    server.start()
    print(f"flopledger doctor: http://{host}:{server.port}/healthz, every {args.every:g} s")
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    try:
        stopped.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


def doctor(args: argparse.Namespace) -> int:
    if args.serve is not None:
        return serve(args)
    found = checks(args.config)
    healthy = report(found)["healthy"]
    if args.json:
        print(json.dumps(report(found)))
    else:
        for check, state, detail in found:
            print(f"{state.upper() if state == 'fail' else state:<5} {check}: {detail}")
        print("healthy" if healthy else "UNHEALTHY")
    if found and found[0][0] == "config" and found[0][1] == "fail":
        return 2
    return 0 if healthy else 1
