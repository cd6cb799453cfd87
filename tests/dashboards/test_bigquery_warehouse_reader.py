"""The dashboards read a BigQuery warehouse (warehouse.kind: bigquery) through the same Reader
as DuckDB's: every dashboards/sql query, transpiled at run time, gives on bqemulator (the real
google-cloud-bigquery client; tests/bigquery_emulator.py) the rows it gives on DuckDB, and a
page renders from BigQuery.

The fleet is the dashboards' own (tests/dashboards/conftest.py, built once per session). Its
published DuckDB tables that the dashboards read are copied into a BigQuery dataset by Parquet
load jobs, so both readers read the same rows and this checks the read side alone; that the
marts themselves come out the same on both engines is tests/warehouse/
test_bigquery_warehouse_parity.py's.
"""

from __future__ import annotations

import json
import math
import os
import uuid
from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
import sqlglot
from sqlglot import exp

from flopledger import models
from flopledger.cli.main import main
from flopledger.clients import bigquery as bq
from flopledger.dashboards import queries
from flopledger.settings import load_config
from flopledger.warehouse import NoWarehouse, QueryError, open_warehouse
from flopledger.warehouse.bigquery import BigQueryWarehouse
from flopledger.warehouse.bigquery_reader import BigQueryReader, mark_published
from flopledger.warehouse.transpile import Column
from tests.bigquery_emulator import PROJECT, BigQueryEmulator
from tests.bigquery_live import LIVE_ENV, LOCATION_ENV, drop_dataset
from tests.conftest import HANG_S
from tests.dashboards.helpers import APP, START, metric
from tests.dashboards.test_dashboard_sql import named_queries_run

DATASET = "dashboards"
# Values for every parameter the dashboards bind (lists empty: "all"); the fleet's three days.
VALUES: dict[str, Any] = {
    "start_day": START,
    "end_day": date(2026, 10, 3),
    "prev_start": date(2026, 9, 28),
    "prev_end": date(2026, 9, 30),
    "label_key": "team",
    "dimension": "team",
    "grain": "week",
    "needle": "",
    "sort_key": "effective_cost",
    "descending": True,
    "row_limit": 50,
    "term": "1y",
}
# Queries with no rows on this fleet: it is simulated without telemetry (no efficiency).
EMPTY_HERE = {"efficiency_summary"}
# The figures' named queries the pages run (models/queries), with what they group by here.
NAMED = named_queries_run()
GROUP_BY = {
    "bill_split": "provider_month",
    "bill_totals": "provider_month",
    "idle_figures": "project_id",
    "managed_spend": "provider_model",
    "run_totals": "team",
}
NAMED_VALUES: dict[str, Any] = {
    "by_day": True,
    "from_day": START,
    "invoice_month": None,
    "latest_only": False,
    "per_class_limit": None,
    "second_dimension": None,
}


def _text(name: str) -> str:
    """A dashboard query's SQL, or a named query's (the names do not overlap)."""
    return models.query_sql(name) if name in NAMED else queries.text(name)


def _every_query() -> list[str]:
    return [*queries.names(), *NAMED]


def _tables_read() -> set[str]:
    """Every table a page's query reads (CTE names left out)."""
    found: set[str] = set()
    for name in _every_query():
        tree = sqlglot.parse_one(_text(name), read="duckdb")
        ctes = {cte.alias_or_name for cte in tree.find_all(exp.CTE)}
        found |= {t.name for t in tree.find_all(exp.Table) if not t.db and t.name not in ctes}
    return found


def _column(field: pa.Field) -> Column:
    """An Arrow column of the DuckDB snapshot as BigQuery declares it (maps as JSON text)."""
    kind = field.type
    if pa.types.is_list(kind):
        inner = _column(pa.field(field.name, kind.value_type))
        return Column(field.name, inner.type, "REPEATED", fields=inner.fields)
    if pa.types.is_struct(kind):
        return Column(field.name, "RECORD", "NULLABLE", fields=tuple(_column(f) for f in kind))
    if pa.types.is_decimal(kind):
        if kind.scale <= 9 and kind.precision - kind.scale <= 29:
            return Column(field.name, "NUMERIC", "NULLABLE")
        return Column(field.name, "BIGNUMERIC", "NULLABLE", precision=38, scale=kind.scale)
    for test, name in (
        (pa.types.is_map, "STRING"),  # JSON text, then parsed (_parse_json)
        (pa.types.is_string, "STRING"),
        (pa.types.is_large_string, "STRING"),
        (pa.types.is_boolean, "BOOL"),
        (pa.types.is_integer, "INT64"),
        (pa.types.is_floating, "FLOAT64"),
        (pa.types.is_date, "DATE"),
        (pa.types.is_timestamp, "TIMESTAMP"),
    ):
        if test(kind):
            return Column(field.name, name, "NULLABLE")
    raise AssertionError(f"{field.name}: no BigQuery type for {kind} in this test")


def _loadable(data: pa.Table) -> pa.Table:
    """Maps as JSON objects (how the BigQuery warehouse keeps them), times as UTC."""
    for index, field in enumerate(data.schema):
        if pa.types.is_map(field.type):
            text = [
                None if row is None else json.dumps(dict(row), sort_keys=True)
                for row in data.column(index).to_pylist()
            ]
            data = data.set_column(index, field.name, pa.array(text, pa.string()))
        elif pa.types.is_timestamp(field.type) and field.type.tz is None:
            utc = data.column(index).cast(pa.timestamp(field.type.unit, tz="UTC"))
            data = data.set_column(index, field.name, utc)
    return data


def _parse_json(warehouse: BigQueryWarehouse, table: str, names: list[str]) -> None:
    """Map columns (loaded as JSON text) as JSON values, as the warehouse's own marts hold them
    (bqemulator reads a subscript of text as an array's)."""
    if names:
        parsed = ", ".join(f"PARSE_JSON({n}) AS {n}" for n in names)
        target = f"`{warehouse.table_id(table)}`"
        warehouse._run(
            f"CREATE OR REPLACE TABLE {target} AS SELECT * REPLACE ({parsed}) FROM {target}"
        )


@pytest.fixture(
    scope="module", params=["emulator", pytest.param("live", marks=pytest.mark.bigquery_live)]
)
def bigquery_config(request: pytest.FixtureRequest, fleet_config: Path) -> Iterator[Path]:
    """The fleet's config pointed at a BigQuery dataset holding the tables the pages read: on
    bqemulator, or (bigquery_live) in a dataset of its own in a real project, deleted after."""
    if request.param == "live":
        project, endpoint = os.environ[LIVE_ENV], None
        dataset, location = (
            f"flopledger_test_{uuid.uuid4().hex[:12]}",
            os.environ.get(LOCATION_ENV, "US"),
        )
    else:
        emulator: BigQueryEmulator = request.getfixturevalue("bigquery_emulator")
        project, endpoint, dataset, location = PROJECT, emulator.endpoint, DATASET, None
    warehouse = BigQueryWarehouse(project, dataset, location=location, endpoint=endpoint)
    try:
        yield _copied(fleet_config, warehouse, request.param)
    finally:
        if request.param == "live":
            drop_dataset(warehouse.client, warehouse.dataset_id)


def _copied(fleet_config: Path, warehouse: BigQueryWarehouse, name: str) -> Path:
    """The tables the dashboards read, copied from the fleet's snapshot; the config beside it."""
    duck = open_warehouse(load_config(fleet_config).warehouse).reader()
    bq.ensure_dataset(warehouse.client, warehouse.dataset_id, warehouse.location)
    have = set(
        duck.query("SELECT table_name FROM information_schema.tables")["table_name"].to_pylist()
    )
    for table in sorted(_tables_read() & have):
        rows = duck.query(f"SELECT * FROM {table}")
        duck_schema, data = rows.schema, _loadable(rows)
        columns = [_column(f) for f in data.schema]
        bq.create_table(warehouse.client, warehouse.table_id(table), columns, "")
        bq.load_parquet(warehouse.client, warehouse.table_id(table), data, columns, False)
        maps = [f.name for f in duck_schema if pa.types.is_map(f.type)]
        _parse_json(warehouse, table, maps)
    duck.close()
    mark_published(warehouse)
    where = {"project": warehouse.project, "dataset": warehouse.dataset}
    where |= {"endpoint": warehouse.endpoint} if warehouse.endpoint else {}
    where |= {"location": warehouse.location} if warehouse.location else {}
    text = fleet_config.read_text().replace(
        "warehouse:\n  kind: duckdb\n  path: warehouse.duckdb\n",
        "warehouse:\n  kind: bigquery\n" + "".join(f"  {k}: {v}\n" for k, v in where.items()),
    )
    assert "kind: bigquery" in text
    config = fleet_config.parent / f"flopledger.bigquery-{name}.yaml"  # beside it: paths hold
    config.write_text(text)
    return config


def _params(name: str) -> dict[str, Any]:
    if name in NAMED:
        values = {**VALUES, **NAMED_VALUES, "group_by": GROUP_BY.get(name)}
        return {p: values.get(p, []) for p in models.QUERIES.params(name)}
    return {p: {**VALUES, **NAMED_VALUES}.get(p, []) for p in queries.params(name)}


def _same(a: Any, b: Any) -> bool:
    """Money exactly (Decimal, whatever its scale); floats to 12 digits (sums in another order)."""
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
    if isinstance(a, Decimal) and isinstance(b, Decimal | int):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


def _first_difference(want: list[dict], got: list[dict]) -> str:
    if len(want) != len(got):
        return f"{len(want)} rows on DuckDB, {len(got)} on BigQuery"
    for index, (a, b) in enumerate(zip(want, got, strict=True)):
        for key in a:
            if not _same(a[key], b.get(key)):
                return f"row {index} {key}: {a[key]!r} on DuckDB, {b.get(key)!r} on BigQuery"
    return "columns differ"


def test_bigquery_warehouse_reader_serves_dashboard_queries(
    fleet_config: Path, bigquery_config: Path
) -> None:
    duck = open_warehouse(load_config(fleet_config).warehouse).reader()
    reader = open_warehouse(load_config(bigquery_config).warehouse).reader()
    assert isinstance(reader, BigQueryReader)
    VALUES["run_id"] = duck.query("SELECT min(run_id) AS r FROM cost_per_run")["r"][0].as_py()
    differ: dict[str, Any] = {}
    empty: set[str] = set()
    for name in _every_query():
        want = duck.query(_text(name), _params(name)).to_pylist()
        try:
            got = reader.query(_text(name), _params(name)).to_pylist()
        except QueryError as exc:
            differ[name] = str(exc)
            continue
        if name == "tables":  # the published-runs marker is BigQuery's own
            got = [row for row in got if row["table_name"] != "published_runs"]
            want = [row for row in want if row["table_name"] in _tables_read()]
        if not _same(want, got):
            differ[name] = _first_difference(want, got)
        elif not want:
            empty.add(name)
    assert not differ, differ
    assert empty <= EMPTY_HERE, f"{empty - EMPTY_HERE}: no rows, so nothing was compared"
    duck.close()
    reader.close()


def test_bigquery_warehouse_page_renders(
    monkeypatch: pytest.MonkeyPatch, fleet_config: Path, bigquery_config: Path
) -> None:
    """The overview page (AppTest) from BigQuery shows the DuckDB page's figures."""
    from streamlit.testing.v1 import AppTest

    shown = {}
    for config in (fleet_config, bigquery_config):
        monkeypatch.setenv("FLOPLEDGER_CONFIG", str(config))
        at = AppTest.from_file(str(APP), default_timeout=HANG_S)
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        assert not at.error, [e.value for e in at.error]
        shown[config] = [
            metric(at, label)
            for label in ("Spend (label team) (USD)", "Cost of runs started (USD)")
        ]
    assert shown[bigquery_config] == shown[fleet_config]
    assert shown[bigquery_config][0].startswith("$")


def test_bigquery_warehouse_reader_is_read_only_and_keys_on_publish(
    bigquery_config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    warehouse = open_warehouse(load_config(bigquery_config).warehouse)
    assert isinstance(warehouse, BigQueryWarehouse)
    reader = warehouse.reader()
    for statement in (
        "DROP TABLE cost_per_run",
        "DELETE FROM cost_per_run WHERE TRUE",
        "CREATE TABLE x AS SELECT 1 AS a",
        "SELECT 1; DROP TABLE cost_per_run",
    ):
        with pytest.raises(QueryError):
            reader.query(statement)
    assert reader.query("SELECT count(*) AS n FROM cost_per_run")["n"][0].as_py() > 0
    with pytest.raises(QueryError, match="cost_per_runs"):  # BigQuery's own words, one line
        reader.query("SELECT * FROM cost_per_runs")
    # `flopledger sql` reads through the same reader; BIGNUMERIC sums print as exact decimals
    assert warehouse.read_query("SELECT count(*) AS n FROM spend_daily")["n"][0].as_py() > 0
    sql = "SELECT CAST(sum(effective_cost) AS DECIMAL(38, 20)) AS s FROM spend_daily"
    total = reader.query(sql)
    assert total.schema.field("s").type == pa.decimal128(38, 9)
    assert main(["sql", "--config", str(bigquery_config), "--format", "csv", sql]) == 0
    assert capsys.readouterr().out == f"s\n{total['s'][0].as_py()}\n"
    assert main(["sql", "--config", str(bigquery_config), "DROP TABLE spend_daily"]) == 1
    assert "read-only" in capsys.readouterr().err

    # The version is the marker's: a new publish changes it (the clock skips the TTL cache).
    now = [0.0]
    timed = BigQueryReader(warehouse, clock=lambda: now[0])
    before = timed.version()
    mark_published(warehouse)
    assert timed.version() == before  # cached for VERSION_TTL_S
    now[0] += 60
    assert timed.version() not in ("", before)

    never = f"never_published_{uuid.uuid4().hex[:8]}"  # no such dataset: nothing published
    empty = BigQueryWarehouse(warehouse.project, never, endpoint=warehouse.endpoint)
    assert empty.reader().version() == ""
    with pytest.raises(NoWarehouse):
        empty.reader().query("SELECT 1 AS a")
