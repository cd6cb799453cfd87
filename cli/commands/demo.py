"""`flopledger demo`: simulate a small fleet into ./demo and run the whole pipeline on it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

DEMO = {"gpus": 48, "tpu_chips": 24, "days": 5, "seed": 1}
BIGQUERY_PROJECT = "flopledger-demo"  # on the emulator: any project name is its own


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("demo", help="simulate a small fleet and run the pipeline on it")
    parser.add_argument(
        "--out", default="demo", help="folder for the demo's inputs and warehouse (default ./demo)"
    )
    parser.add_argument(
        "--warehouse",
        choices=["duckdb", "bigquery"],
        default="duckdb",
        help="where the warehouse lives (default duckdb; bigquery: a dataset on --endpoint)",
    )
    parser.add_argument(
        "--endpoint",
        default="http://127.0.0.1:9050",
        help="the BigQuery emulator with --warehouse bigquery (`make bigquery-emulator`)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from flopledger.cli.run_report import print_report
    from flopledger.pipelines.runner import run_pipeline
    from flopledger.settings import load_config
    from flopledger.simulator import simulate

    print(
        f"simulating {DEMO['gpus']} GPUs and {DEMO['tpu_chips']} TPU chips for {DEMO['days']} days "
        f"into {args.out}/",
        file=sys.stderr,
        flush=True,
    )
    result = simulate(
        Path(args.out),
        gpus=DEMO["gpus"],
        tpu_chips=DEMO["tpu_chips"],
        days=DEMO["days"],
        seed=DEMO["seed"],
    )
    if args.warehouse == "bigquery":
        _on_bigquery(Path(result.config_path), args.endpoint)
    config = load_config(result.config_path)
    report = run_pipeline(config, result.config_path)
    print_report(report)
    truth = result.totals
    print(
        f"\nsimulator's own totals: effective {truth['effective_usd']} USD over {truth['distinct_rows']:,} rows "
        f"(ground truth in {result.out_dir / 'truth'})"
    )
    _next_steps(result.config_path)
    return 0 if report.succeeded else 1


def _on_bigquery(config: Path, endpoint: str) -> None:
    """The simulated config's warehouse moved to BigQuery: dataset `demo` on the emulator at
    `endpoint` (waited for up to a minute: it may still be starting)."""
    import socket
    import time
    from urllib.parse import urlsplit

    where = urlsplit(endpoint if "://" in endpoint else f"http://{endpoint}")
    deadline = time.monotonic() + 60
    print(f"warehouse: BigQuery dataset {BIGQUERY_PROJECT}.demo at {endpoint}", file=sys.stderr)
    while True:
        try:
            socket.create_connection((where.hostname, where.port or 80), timeout=2).close()
            break
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit(f"flopledger demo: no BigQuery emulator at {endpoint}") from None
            time.sleep(1)
    text = config.read_text()
    duckdb = "warehouse:\n  kind: duckdb\n  path: warehouse.duckdb\n"
    assert duckdb in text, "the simulator writes a DuckDB warehouse block"
    config.write_text(
        text.replace(
            duckdb,
            f"warehouse:\n  kind: bigquery\n  project: {BIGQUERY_PROJECT}\n  dataset: demo\n"
            f"  endpoint: {endpoint}\n",
        )
    )


def _next_steps(config: Path) -> None:
    """Where a newcomer goes from here: every run, the idle hours, the dashboards."""
    sql = f".venv/bin/flopledger sql --config {config}"
    print(
        "\nnext:\n"
        f'  every run:   {sql} "SELECT run_id, team, effective_cost, cost_per_million_tokens, '
        'mean_utilisation_pct FROM cost_per_run ORDER BY effective_cost DESC"\n'
        f'  idle by day: {sql} "SELECT * FROM idle_capacity_daily"\n'
        f"  dashboards:  .venv/bin/flopledger dashboard --config {config}   (http://127.0.0.1:8501)"
    )
