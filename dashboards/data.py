"""The dashboards' one door to the warehouse: named SQL files, bound parameters, cached results.

Nothing connects at import. Queries read the latest *published snapshot* read-only, so
the dashboard never takes the pipeline's write lock and never sees a half-built table.
Where the warehouse publishes a snapshot file (DuckDB), one read-only connection per
snapshot version is kept (opening the file costs ~25 ms a query at fleet scale); it is
made in a private in-memory DuckDB that ATTACHes the file, so a newly swapped-in file is
never confused with the old one DuckDB may still cache by path. Other warehouses go
through `read_query`. Results are cached per (config, snapshot version, query,
parameters): a new snapshot changes the version, so the next page load reads it.

The SQL lives in `dashboards/sql/*.sql`, one query per file, written in DuckDB's dialect
with positional `?` parameters only (SQLGlot can carry them to BigQuery). User input only
ever reaches a query as a bound parameter; sort keys and dimensions are bound too and
matched against a fixed `CASE` in the SQL, after a whitelist check here.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pyarrow as pa
import streamlit as st

from settings import load_config
from warehouse import Warehouse, open_warehouse

log = logging.getLogger(__name__)

CONFIG_ENV = "FLOPLEDGER_CONFIG"
SQL_DIR = Path(__file__).parent / "sql"
CACHE_TTL_S = 600

SORT_KEYS = {
    "effective_cost": "Cost (USD)",
    "accelerator_hours": "Accelerator-hours",
    "cost_per_million_tokens": "USD per million tokens",
    "queue_seconds": "Queue time (s)",
    "started_at": "Start time",
    "mean_utilisation_pct": "Mean utilisation (%)",
    "mfu_spec_pct": "MFU vs spec (%)",
}
TOKEN_DIMENSIONS = {
    "model_name": "Model",
    "team": "Team",
    "workload_class": "Workload class",
    "accelerator_type": "Accelerator type",
    "project_id": "Project",
}
IDLE_DIMENSIONS = {"accelerator_type": "Accelerator type", "project_id": "Project"}


class NoWarehouse(Exception):
    """No warehouse has been built (or published) yet."""


class QueryFailed(Exception):
    """A query failed; the details are in the server log, never on the page."""


@cache
def sql_text(name: str) -> str:
    """The text of `dashboards/sql/<name>.sql` (names come from code, never from users)."""
    path = SQL_DIR / f"{name}.sql"
    if path.parent != SQL_DIR or not path.is_file():
        raise KeyError(f"no dashboard query named {name!r}")
    return path.read_text()


def config_path() -> str:
    """The flopledger.yaml to read: $FLOPLEDGER_CONFIG, else `--config FILE` after `--`."""
    if os.environ.get(CONFIG_ENV):
        return str(Path(os.environ[CONFIG_ENV]).resolve())
    argv = sys.argv[1:]
    if "--config" in argv and argv.index("--config") + 1 < len(argv):
        return str(Path(argv[argv.index("--config") + 1]).resolve())
    return str(Path("flopledger.yaml").resolve())


@st.cache_resource(show_spinner=False)
def warehouse(path: str) -> Warehouse:
    """The configured warehouse (opened lazily, once per config file)."""
    return open_warehouse(load_config(path).warehouse)


def snapshot_file(wh: Warehouse) -> Path | None:
    """The published snapshot file of a file warehouse (None: not published yet, or no file)."""
    target = getattr(wh, "snapshot_path", None)
    return Path(target) if target is not None and Path(target).exists() else None


def snapshot_version(wh: Warehouse) -> str:
    """Changes whenever a new snapshot is published (file warehouses: inode and mtime)."""
    for target in (snapshot_file(wh), getattr(wh, "path", None)):
        if target is not None and Path(target).exists():
            stat = Path(target).stat()
            return f"{target}:{stat.st_ino}:{stat.st_mtime_ns}"
    return ""


@st.cache_resource(max_entries=2, show_spinner=False)
def _snapshot_connection(path: str, version: str) -> duckdb.DuckDBPyConnection:
    """One read-only connection to one published snapshot (a new version: a new connection)."""
    con = duckdb.connect(":memory:")
    con.execute("SET TimeZone = 'UTC'")
    con.execute("ATTACH '" + path.replace("'", "''") + "' AS snapshot (READ_ONLY)")
    return con


def _read(wh: Warehouse, version: str, sql: str, params: list[Any] | None) -> pa.Table:
    snapshot = snapshot_file(wh)
    if snapshot is None or not version.startswith(str(snapshot)):
        return wh.read_query(sql, params)
    cursor = _snapshot_connection(str(snapshot), version).cursor()  # one cursor per thread
    try:
        cursor.execute("USE snapshot")  # a cursor starts in the default catalog
        return cursor.sql(sql, params=params).to_arrow_table()
    finally:
        cursor.close()


def _bindable(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


@st.cache_data(ttl=CACHE_TTL_S, max_entries=1024, show_spinner=False)
def _cached(path: str, version: str, name: str, params: tuple[Any, ...]) -> pd.DataFrame:
    bound = [_bindable(v) for v in params] or None
    return _read(warehouse(path), version, sql_text(name), bound).to_pandas()


def query(name: str, params: Sequence[Any] = ()) -> pd.DataFrame:
    """Run the named query with bound parameters against the latest snapshot (cached)."""
    path = config_path()
    wh = warehouse(path)
    version = snapshot_version(wh)
    if not version:
        raise NoWarehouse(path)
    frozen = tuple(tuple(v) if isinstance(v, list) else v for v in params)
    try:
        return _cached(path, version, name, frozen)
    except FileNotFoundError as exc:
        raise NoWarehouse(path) from exc
    except Exception as exc:  # noqa: BLE001 - logged here, shown as a generic message
        log.exception("dashboard query %s failed", name)
        raise QueryFailed(name) from exc


def tables() -> set[str]:
    """Tables the snapshot holds (optional marts appear when their issue lands)."""
    return set(query("tables")["table_name"])


def has_table(name: str) -> bool:
    return name in tables()
