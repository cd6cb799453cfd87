"""The dashboards' one door to the warehouse: named SQL files, named parameters, cached results.

Reading. Every query goes through the warehouse's `Reader` (`warehouse/base.py`): one
long-lived reader per config file (`st.cache_resource`), which reads the latest *published
snapshot* read-only, so the dashboard never takes the pipeline's write lock and never sees a
half-built table. This module never asks which warehouse is configured and never imports its
driver. Nothing connects at import: the reader is opened by the first query.

Caching. Results are cached per (config, `reader.version()`, query name, parameters), TTL 10
min: publishing a new snapshot changes the version, so the next page load reads it.

SQL. One query per file in `dashboards/sql/`, DuckDB's dialect, plain constructs (SQLGlot can
carry them to BigQuery); `dashboards/queries.py` loads them. A figure the CLI, the month report
or budgets show too is computed by its one owning query in models/queries (figures/__init__.py
names it), run here by `named()`: the page shows the number they show, never a second copy. Parameters are bound by name
(`$name`, a dict), never by position. The sidebar filters are defined once: the fragment
`sql/fragments/filter_values.sql` types the seven filter parameters (`Filters.params()`), and
one fragment per source table (`spend_in_filters`, `idle_days_in_filters`, ...; the runs' is
models/queries/fragments/runs_in_filters.sql) says which filters apply to it and how. A query
reads a fragment as a table (`FROM spend_in_filters AS s`) and the loader splices the fixed fragment text in, so a new
filter is one parameter, one line in `filter_values`, and one predicate per source fragment
(the runs' fragment binds its own: docs/dashboards.md).
`query()` and `named()` refuse parameters other than the ones the SQL uses.

User input reaches SQL only as a bound parameter. Sort keys and dimensions are checked
against a whitelist here (`SORT_KEYS`, `TOKEN_DIMENSIONS`, `IDLE_DIMENSIONS`), then bound too
and matched against a fixed `CASE` in the SQL.

Money stays DECIMAL from the warehouse to the DataFrame (Python `Decimal`), so tables and
their CSV downloads carry every digit; pages round it for display only, and charts convert
to float inside `charts.py`.

Errors. No warehouse yet: `NoWarehouse` (the app says how to build one). Any other failure:
logged here with its details, and `QueryFailed` (the page shows a generic message).
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import streamlit as st

from flopledger import models, warehouse
from flopledger.dashboards import queries
from flopledger.dashboards.filters import ExplorerFilters, Filters
from flopledger.figures import figure
from flopledger.settings import load_config
from flopledger.warehouse import Reader, open_warehouse

log = logging.getLogger(__name__)

CONFIG_ENV = "FLOPLEDGER_CONFIG"
CACHE_TTL_S = 600

SORT_KEYS = {
    "effective_cost": f"{figure('run_cost').name} (USD)",
    "accelerator_hours": "Accelerator-hours",
    "cost_per_million_tokens": f"{figure('cost_per_million_tokens').name} (USD)",
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
IDLE_DIMENSIONS = {
    "provider": "Provider",
    "accelerator_type": "Accelerator type",
    "project_id": "Project",
}

# Bound parameters as a cache key: (name, value) pairs sorted by name, lists as tuples.
Frozen = tuple[tuple[str, Any], ...]


class NoWarehouse(Exception):
    """No warehouse has been built (or published) yet."""


class QueryFailed(Exception):
    """A query failed; the details are in the server log, never on the page."""


def config_path() -> str:
    """The flopledger.yaml to read: $FLOPLEDGER_CONFIG, else `--config FILE` after `--`."""
    if os.environ.get(CONFIG_ENV):
        return str(Path(os.environ[CONFIG_ENV]).resolve())
    argv = sys.argv[1:]
    if "--config" in argv and argv.index("--config") + 1 < len(argv):
        return str(Path(argv[argv.index("--config") + 1]).resolve())
    return str(Path("flopledger.yaml").resolve())


@st.cache_resource(show_spinner=False)
def reader(path: str) -> Reader:
    """The configured warehouse's reader (opened on first use, once per config file)."""
    return open_warehouse(load_config(path, warn=False).warehouse).reader()


def _read(source: Reader, name: str, params: dict[str, Any], named: bool = False) -> pa.Table:
    """One query against the snapshot: a dashboard query, or a named one of models/queries
    (benchmarks time this)."""
    text = models.query_sql(name) if named else queries.text(name)
    return source.query(text, params or None)


def _frozen(params: dict[str, Any]) -> Frozen:
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in params.items()))


def _thawed(params: Frozen) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in params}


@st.cache_data(ttl=CACHE_TTL_S, max_entries=1024, show_spinner=False)
def _cached(path: str, version: str, name: str, params: Frozen, named: bool) -> pd.DataFrame:
    return _read(reader(path), name, _thawed(params), named).to_pandas()


def query(
    name: str,
    filters: Filters | None = None,
    explorer: ExplorerFilters | None = None,
    **params: Any,
) -> pd.DataFrame:
    """Run the named query against the latest snapshot (cached), binding the filters'
    parameters (when given), the cost explorer's (when given) and `params` by name."""
    bound = {
        **(filters.params() if filters is not None else {}),
        **(explorer.params() if explorer is not None else {}),
        **params,
    }
    queries.check(name, bound)
    return _run(name, bound, named=False)


def named(name: str, filters: Filters | None = None, **params: Any) -> pd.DataFrame:
    """Run models/queries/<name>.sql, the query that owns a figure (the CLI, the month report
    and budgets run it too), binding those of the filters' parameters it takes (when given:
    idle capacity has no team, say) and `params`."""
    wanted = models.QUERIES.params(name)
    chosen = filters.params() if filters is not None else {}
    bound = {**{k: v for k, v in chosen.items() if k in wanted}, **params}
    if set(bound) != wanted:
        missing, extra = sorted(wanted - set(bound)), sorted(set(bound) - wanted)
        raise TypeError(f"named query {name!r}: missing parameters {missing}, unknown {extra}")
    return _run(name, bound, named=True)


def _run(name: str, bound: dict[str, Any], named: bool) -> pd.DataFrame:
    path = config_path()
    version = reader(path).version()
    if not version:
        raise NoWarehouse(path)
    try:
        return _cached(path, version, name, _frozen(bound), named)
    except warehouse.NoWarehouse as exc:
        raise NoWarehouse(path) from exc
    except Exception as exc:  # noqa: BLE001 - logged here, shown as a generic message
        log.exception("dashboard query %s failed", name)
        raise QueryFailed(name) from exc


def providers() -> list[str]:
    """The providers the snapshot holds (gcp, and FOCUS ProviderNames), sorted. Pages show a
    provider column or breakdown only when there is more than one."""
    frame = query("options")
    return frame.loc[frame["dimension"] == "provider", "value"].tolist()


def tables() -> set[str]:
    """Tables the snapshot holds (optional marts appear when their issue lands)."""
    return set(query("tables")["table_name"])


def has_table(name: str) -> bool:
    return name in tables()
