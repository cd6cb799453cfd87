"""`flopledger sql`: one read-only query against the latest published snapshot, printed.

Bounded, so that one query cannot take the machine: it is stopped at a time limit
(`--timeout`), its engine's memory is capped (`--memory-limit`), and its result is never
gathered whole. CSV and JSON are written batch by batch as the engine makes the rows, the same
bytes as the whole frame written at once (polars writes each value by its column's type alone,
money's decimals exactly); a table fetches the rows it shows and one more, to know whether
there were more. A limit hit is one line on stderr naming the flag that moves it, exit code 1
as for any refused query (what was written before it stays written).
"""

from __future__ import annotations

import argparse
import os
import re
import sys

import pyarrow as pa

from flopledger.clients.network import use_deadlines
from flopledger.settings import load_config
from flopledger.warehouse import QueryError, open_warehouse
from flopledger.warehouse.bounds import Bounds, QueryOutOfMemory, QueryTimeout, Rows

TIMEOUT_S = 120.0
# The default memory limit: half the machine's memory, at most this (DuckDB's own default is
# 80% of it, which leaves a query free to push everything else out).
MEMORY_CAP_BYTES = 4 * 2**30
_SIZE = re.compile(r"^[0-9]+(\.[0-9]+)?\s*[KMGT]i?B$", re.IGNORECASE)  # DuckDB's units


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("sql", help="run a read-only SQL query and print the result")
    parser.add_argument("--config", default="flopledger.yaml", help="path to flopledger.yaml")
    parser.add_argument("--format", choices=["table", "csv", "json"], default="table")
    parser.add_argument(
        "--max-rows",
        type=_count,
        default=100,
        help="rows shown as a table (only these are fetched)",
    )
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=TIMEOUT_S,
        metavar="SECONDS",
        help=f"stop the query after this long (default {TIMEOUT_S:g})",
    )
    parser.add_argument(
        "--memory-limit",
        type=_size,
        default=None,
        metavar="SIZE",
        help="the query engine's memory, e.g. 8GB or 512MiB (default: half this machine's, "
        "at most 4 GiB)",
    )
    parser.add_argument("query", help='SQL, e.g. "SELECT * FROM cost_per_run LIMIT 10"')
    parser.set_defaults(func=sql)


def _count(text: str) -> int:
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"not a row count: {text}")
    return int(text)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"not a number of seconds above 0: {text}")
    return value


def _size(text: str) -> str:
    if not _SIZE.match(text.strip()) or float(re.sub(r"[^0-9.]", "", text)) <= 0:
        raise argparse.ArgumentTypeError(f"not a size such as 4GB or 512MiB: {text}")
    return text.strip()


def default_memory_limit() -> str:
    """Half this machine's memory, at most MEMORY_CAP_BYTES, in DuckDB's units."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):  # no sysconf (Windows): the cap
        total = 2 * MEMORY_CAP_BYTES
    return f"{min(total // 2, MEMORY_CAP_BYTES) // 2**20}MiB"


def sql(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    use_deadlines(config.network.deadline_s, config.network.webhook_deadline_s)  # BigQuery's
    warehouse = open_warehouse(config.warehouse)
    table = args.format == "table"
    bounds = Bounds(
        timeout_s=args.timeout,
        memory_limit=args.memory_limit or default_memory_limit(),
        max_rows=args.max_rows + 1 if table else None,  # one more: were there more?
    )
    try:
        with warehouse.read_bounded(args.query, bounds) as rows:
            if table:
                _print_table(rows, args.max_rows)
            else:
                _write(rows, args.format)
    except QueryTimeout:
        return _refused(
            f"stopped at the time limit of {args.timeout:g} s (raise it with --timeout SECONDS)"
        )
    except QueryOutOfMemory:
        return _refused(
            f"out of memory at the limit of {bounds.memory_limit} (raise it with "
            "--memory-limit SIZE, e.g. --memory-limit 8GB)"
        )
    except QueryError as exc:
        return _refused(str(exc).strip().splitlines()[0])
    return 0


def _refused(line: str) -> int:
    sys.stdout.flush()  # what was written before the refusal comes first
    print(f"flopledger sql: {line}", file=sys.stderr)
    return 1


def _write(rows: Rows, fmt: str) -> None:
    """CSV (a header, then each batch's rows) or NDJSON (each batch's rows), as they come."""
    import polars as pl

    if fmt == "csv":
        sys.stdout.write(pl.DataFrame(rows.schema.empty_table()).write_csv())
    for batch in rows.batches:
        frame = pl.DataFrame(batch)
        sys.stdout.write(
            frame.write_csv(include_header=False) if fmt == "csv" else frame.write_ndjson()
        )


def _print_table(rows: Rows, max_rows: int) -> None:
    """The first `max_rows` rows as a table, and a line saying so when there were more."""
    import polars as pl

    fetched = pa.Table.from_batches(list(rows.batches), schema=rows.schema)
    with pl.Config(tbl_rows=max_rows, tbl_cols=-1, fmt_str_lengths=60, tbl_width_chars=200):
        print(pl.DataFrame(fetched.slice(0, max_rows)))
    if fetched.num_rows > max_rows:
        print(f"{max_rows} rows shown; more not fetched (raise --max-rows)")
