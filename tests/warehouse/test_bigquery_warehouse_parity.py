"""The BigQuery warehouse (warehouse.kind: bigquery) against DuckDB, on one small simulated
fleet: the real pipeline builds the DuckDB warehouse; its raw tables are loaded into the
BigQuery warehouse on bqemulator (tests/bigquery_emulator.py; the real google-cloud-bigquery
client) by the warehouse's own Parquet loads; every mart is then built on both engines from
the same models/marts/*.sql (transpiled for BigQuery) and compared row by row.

Money compares exactly, as Decimal. Floats (utilisation, percentiles, hours) are compared to
12 significant digits: the engines may add them in another order. A timestamp is compared as
UTC (BigQuery's carry their zone, DuckDB's are naive UTC), a map as its key-value pairs
(DuckDB's MAP, BigQuery's JSON object), JSON text as the object it holds (BigQuery's JSON
type keeps an object's keys in its own order: focus_costs.tags).
"""

from __future__ import annotations

import json
import math
import os
import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from flopledger import models
from flopledger.budgets.budget_file import load_budgets, parse_budgets
from flopledger.budgets.evaluate import evaluate_budgets, raise_alerts
from flopledger.budgets.fx import load_fx_rates
from flopledger.budgets.status import from_rows, to_arrow
from flopledger.clients import bigquery as bq
from flopledger.clients.bigquery import BigQueryError
from flopledger.pipelines.runner import run_pipeline
from flopledger.settings import load_config
from flopledger.simulator import simulate
from flopledger.warehouse.bigquery import (
    MART_LAYOUT,
    PARTITIONS,
    BigQueryWarehouse,
    mart_layout_spec,
)
from flopledger.warehouse.duckdb import DuckDBWarehouse
from tests.bigquery_emulator import PROJECT
from tests.bigquery_live import LIVE_ENV, LOCATION_ENV, drop_dataset

# The smallest fleet whose pipeline fills the raw tables every mart reads: GPUs and TPU
# slices with telemetry, runs, commitments, managed inference; one day.
FLEET = {"gpus": 8, "tpu_chips": 4, "days": 1, "start": date(2026, 3, 2), "telemetry": True}


class Engines:
    def __init__(self, duck: DuckDBWarehouse, bq: BigQueryWarehouse) -> None:
        self.duck, self.bq = duck, bq
        self.built: dict[str, tuple[int, int]] = {}


@pytest.fixture(scope="module")
def duck(tmp_path_factory: pytest.TempPathFactory) -> DuckDBWarehouse:
    """The fleet's DuckDB warehouse, built by the real pipeline (every mart included)."""
    result = simulate(tmp_path_factory.mktemp("fleet"), **FLEET)  # type: ignore[arg-type]
    outcome = run_pipeline(load_config(result.config_path), result.config_path)
    assert outcome.succeeded, outcome.failures
    return DuckDBWarehouse(Path(result.config_path).parent / "warehouse.duckdb")


@pytest.fixture(
    scope="module", params=["emulator", pytest.param("live", marks=pytest.mark.bigquery_live)]
)
def engines(request: pytest.FixtureRequest, duck: DuckDBWarehouse) -> Iterator[Engines]:
    """The fleet's raw tables loaded into a BigQuery warehouse and every mart built there: on
    the session's bqemulator (tests/conftest.py) in a dataset of its own, or (bigquery_live) in
    a dataset of its own in a real project, deleted after (tests/bigquery_live.py)."""
    if request.param == "live":
        project, endpoint = os.environ[LIVE_ENV], None
        dataset = f"flopledger_test_{uuid.uuid4().hex[:12]}"
        location: str | None = os.environ.get(LOCATION_ENV, "US")
    else:
        emulator = request.getfixturevalue("bigquery_emulator")
        project, endpoint, dataset, location = PROJECT, emulator.endpoint, "parity", None
    bq = BigQueryWarehouse(project, dataset, location=location, endpoint=endpoint)
    try:
        assert not bq.exists()
        bq.ensure_schema()
        for raw in models.raw_tables():
            _load(duck, bq, raw.name)
        found = Engines(duck, bq)
        for mart in models.marts():  # the pipeline has built them on DuckDB
            duck_rows = duck.query(f"SELECT count(*) AS n FROM {mart.name}")["n"][0].as_py()
            found.built[mart.name] = (duck_rows, bq.build_mart(mart.name))
        yield found
    finally:
        if request.param == "live":
            drop_dataset(bq.client, bq.dataset_id)


def _load(duck: DuckDBWarehouse, bq: BigQueryWarehouse, table: str) -> None:
    """A raw table as the pipeline would load it: by day where it is partitioned."""
    rows = duck.query(f"SELECT * FROM {table}")
    day_column = PARTITIONS.get(table)
    if day_column is None:
        assert bq.replace_all(table, rows) == rows.num_rows
        return
    days = sorted(set(pc.cast(rows[day_column], pa.date32()).to_pylist()))
    assert bq.replace_days(table, day_column, days, rows) == rows.num_rows


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-9)
    return a == b


def _value(value: Any) -> Any:
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    if isinstance(value, list) and all(isinstance(v, tuple) and len(v) == 2 for v in value):
        return dict(value)  # DuckDB's MAP
    if isinstance(value, str) and value.startswith("{") and value.endswith("}"):
        try:
            return json.loads(value)  # BigQuery's JSON object (a map), or JSON text
        except ValueError:
            return value
    return value


def _rows(table: pa.Table) -> list[dict[str, Any]]:
    rows = [{k: _value(v) for k, v in row.items()} for row in table.to_pylist()]
    return sorted(
        rows, key=lambda r: [json.dumps(v, sort_keys=True, default=str) for v in r.values()]
    )


def _money_columns(table: pa.Table) -> list[str]:
    return [f.name for f in table.schema if pa.types.is_decimal(f.type)]


def test_bigquery_warehouse_marts_match_duckdb(engines):
    differ = {}
    for mart in models.marts():
        duck_rows = engines.duck.query(f"SELECT * FROM {mart.name}")
        bq_rows = engines.bq.query(f"SELECT * FROM {mart.name}")
        assert duck_rows.column_names == bq_rows.column_names, mart.name
        a, b = _rows(duck_rows), _rows(bq_rows)
        wrong = [
            {k: (x[k], y[k]) for k in x if not _same(x[k], y[k])}
            for x, y in zip(a, b, strict=False)
        ]
        wrong = [w for w in wrong if w]
        if len(a) != len(b) or wrong:
            differ[mart.name] = (len(a), len(b), len(wrong), wrong[:2])
    assert differ == {}
    # Every mart has rows on this fleet but the ones the fleet has no input for.
    empty = {name for name, (rows, _) in engines.built.items() if rows == 0}
    assert empty <= {"egress_daily", "run_direct_costs"}, empty


# Scopes the fleet's own budgets.yaml leaves out: the allocated basis (a workload class), labels
# on both bases, several lists at once; and spend-change rules grouped every way.
EXTRA_BUDGETS = {
    "budgets": [
        {
            "name": "llm-runs",
            "scope": {
                "team": ["llm"],
                "workload_class": ["training", "batch_inference"],
                "labels": {"retry": "false"},
            },
            "period": "quarter",
            "amount": "100",
        },
        {
            "name": "llm-labelled",
            "scope": {"project": ["acme-llm-prod"], "labels": {"team": "llm"}},
            "amount": "100",
        },
    ],
    "rules": {
        "spend_change": [
            {"name": f"by-{group}", "group_by": group, "baseline_days": 1, "above_pct": 1}
            for group in ("team", "project", "accelerator_type")
        ]
        + [
            {
                "name": "runs-by-team",
                "group_by": "team",
                "scope": {"workload_class": ["training"]},
                "baseline_days": 1,
                "above_pct": 1,
            }
        ],
    },
}


def _statuses(rows: pa.Table) -> list[dict[str, Any]]:
    return sorted(
        ({k: _value(v) for k, v in row.items()} for row in rows.to_pylist()),
        key=lambda r: (r["budget"], r["period_start"]),
    )


def test_bigquery_warehouse_budget_status_and_alerts_match_duckdb(engines):
    # The budget_status and alerts assets' queries (billing_bounds, billing_spend_by_day,
    # allocated_spend_by_day, the efficiency and health rules') on both engines: the same
    # statuses and alerts, written to budget_status and read back by budget_status_rows (as
    # the alerts asset reads them).
    config_path = engines.duck.path.parent / "flopledger.yaml"
    config = load_config(config_path)
    fleet = load_budgets(config.budgets)
    extra = parse_budgets(EXTRA_BUDGETS)
    budgets = fleet.model_copy(
        update={
            "budgets": fleet.budgets + extra.budgets,
            "rules": fleet.rules.model_copy(
                update={"spend_change": fleet.rules.spend_change + extra.rules.spend_change}
            ),
        }
    )
    rates, now = load_fx_rates(config.fx_rates), datetime(2026, 3, 3, 6)
    found = {}
    for name, warehouse in (("duck", engines.duck), ("bq", engines.bq)):
        statuses = evaluate_budgets(warehouse, budgets, rates, now)
        assert warehouse.replace_all("budget_status", to_arrow(statuses)) == len(statuses)
        rows = warehouse.query(models.query_sql("budget_status_rows"))
        alerts = raise_alerts(warehouse, budgets, from_rows(rows.to_pylist()), now)
        found[name] = (_statuses(rows), sorted(a.alert_id for a in alerts))
    duck, bq_found = found["duck"], found["bq"]
    assert duck[0] == bq_found[0]
    assert duck[1] == bq_found[1]
    # Every budget measured something: the scopes match spend on this fleet.
    spent = {r["budget"] for r in duck[0] if r["spend_to_date"] > 0}
    assert spent == {b.name for b in budgets.budgets}, spent


def test_bigquery_warehouse_money_is_exact_decimal(engines):
    # Money crosses from BigQuery as NUMERIC (Decimal, 9 places), never as a float.
    rows = engines.bq.query("SELECT * FROM cost_per_run")
    assert "effective_cost" in _money_columns(rows)
    total = sum(r["effective_cost"] for r in rows.to_pylist() if r["effective_cost"] is not None)
    assert isinstance(total, Decimal)
    duck_total = engines.duck.query("SELECT sum(effective_cost) AS t FROM cost_per_run")
    assert total == duck_total["t"][0].as_py()


def test_bigquery_warehouse_books_close_on_both_engines(engines):
    # books: one row per check, difference = actual - expected; zero when the books close.
    for warehouse in (engines.duck, engines.bq):
        rows = warehouse.query("SELECT check_name, difference FROM books").to_pylist()
        assert rows and all(r["difference"] == 0 for r in rows), rows


def test_bigquery_warehouse_partition_rerun_changes_nothing(engines):
    bq, day = engines.bq, FLEET["start"]
    the_day = (
        "SELECT gpu_uuid, minute, power_w, energy_j, util_gpu_pct FROM gpu_samples "
        "WHERE CAST(minute AS DATE) = $day ORDER BY gpu_uuid, minute"
    )
    before = bq.query(the_day, {"day": day}).to_pylist()
    count = bq.query("SELECT count(*) AS n FROM gpu_samples")["n"][0].as_py()
    one_day = engines.duck.query(
        "SELECT * FROM gpu_samples WHERE CAST(minute AS DATE) = $day", {"day": day}
    )
    assert one_day.num_rows == len(before) > 0
    assert bq.replace_days("gpu_samples", "minute", [day], one_day) == one_day.num_rows
    assert bq.query(the_day, {"day": day}).to_pylist() == before
    assert bq.query("SELECT count(*) AS n FROM gpu_samples")["n"][0].as_py() == count
    # A billing batch read twice: insert_new takes none of it the second time, compared over
    # the whole table or (as the billing source does) over the batch's usage days only.
    billing = engines.duck.query("SELECT * FROM billing_line_items")
    assert bq.insert_new("billing_line_items", billing, "row_id") == 0
    assert bq.insert_new("billing_line_items", billing, "row_id", day="usage_day") == 0
    assert bq.query("SELECT count(*) AS n FROM billing_line_items")["n"][0].as_py() == (
        billing.num_rows
    )


def test_bigquery_warehouse_catalogue_carries_the_comments(engines):
    tables = {t.table: t for t in engines.bq.catalogue()}
    billing = tables["billing_line_items"]
    assert billing.comment == models.model("billing_line_items").table_comment
    columns = {c.column: c for c in billing.columns}
    assert columns["usage_day"].comment.startswith("UTC day of usage_start")
    mart = tables["cost_per_run"]
    assert mart.comment == models.model("cost_per_run").table_comment
    assert all(
        c.comment for c in mart.columns if c.column in models.model("cost_per_run").column_comments
    )
    # No staging table is left behind by the loads.
    assert not [name for name in tables if "__incoming_" in name]


def test_bigquery_warehouse_hostile_loads_are_refused_in_one_line(engines):
    bq = engines.bq
    jobs = bq.query("SELECT count(*) AS n FROM jobs")["n"][0].as_py()
    stray = pa.table({"run_id": ["r"], "colour": ["blue"]})
    with pytest.raises(ValueError, match="^jobs: no column colour$"):
        bq.replace_all("jobs", stray)
    wrong_type = pa.table({"run_id": ["r"], "attempt": ["first"]})  # attempt is INT64
    with pytest.raises(BigQueryError) as refused:
        bq.replace_all("jobs", wrong_type)
    assert "\n" not in str(refused.value)
    assert not [t.table for t in bq.catalogue() if "__incoming_" in t.table]  # no stage left
    # Nothing to replace and nothing to insert change nothing.
    empty = engines.duck.query("SELECT * FROM jobs LIMIT 0")
    assert bq.replace_days("jobs", "submitted_day", [], empty) == 0
    assert bq.insert_new("jobs", empty, "run_id") == 0
    assert bq.query("SELECT count(*) AS n FROM jobs")["n"][0].as_py() == jobs
    with pytest.raises(ValueError, match="not a plain identifier"):
        bq.replace_days("jobs", "submitted_day) OR (TRUE", [FLEET["start"]], empty)


def test_bigquery_warehouse_marts_are_partitioned_and_clustered(engines):
    # As BigQuery records a CREATE TABLE's PARTITION BY / CLUSTER BY (MART_LAYOUT): by the UTC
    # day of an hourly mart's hour, a daily mart's day, a monthly mart's month by MONTH.
    client, dataset = engines.bq.client, engines.bq.dataset_id
    expected = {
        "billing_hourly": ("hour", "DAY", ["project_id", "resource_name"]),
        "spend_daily": ("day", "DAY", ["provider", "project_id", "team"]),
        "team_chargeback": ("month", "MONTH", ["team"]),
        "cost_per_run": ("run_day", "DAY", ["team", "project_id", "run_id"]),
        "focus_costs": ("charge_period_start", "DAY", ["billing_account_id", "sub_account_id"]),
    }
    for name, (field, unit, cluster) in expected.items():
        table = client.get_table(engines.bq.table_id(name))
        assert table.time_partitioning is not None, name
        assert (table.time_partitioning.field, table.time_partitioning.type_) == (field, unit)
        assert table.clustering_fields == cluster, name
    # BigQuery takes PARTITION BY DATE(x) of a TIMESTAMP, a DATE column itself, DATE_TRUNC of a
    # DATE (the emulator takes any): every mart's partition column has the type its form needs.
    for name, (partition, _) in MART_LAYOUT.items():
        table = client.get_table(engines.bq.table_id(name))
        kinds = {f.name: f.field_type for f in table.schema}
        column = table.time_partitioning.field
        wanted = "TIMESTAMP" if partition.startswith("DATE(") else "DATE"
        assert kinds[column] == wanted, (name, partition, kinds[column])
    # What BigQuery records is what build_mart compares with, so a rerun drops nothing.
    for mart in models.marts():
        have = bq.table_layout(client, engines.bq.table_id(mart.name))
        assert have == mart_layout_spec(mart.name), mart.name
    books = client.get_table(f"{dataset}.books")  # five rows: not partitioned
    assert books.time_partitioning is None and books.clustering_fields is None


def test_bigquery_warehouse_mart_layout_names_the_marts_columns():
    # Every partition and clustering column is one the mart declares (its @col lines).
    for name, (partition, cluster) in MART_LAYOUT.items():
        declared = models.model(name).column_comments
        column = partition.removeprefix("DATE(").removeprefix("DATE_TRUNC(").split(",")[0]
        assert column.rstrip(")") in declared, (name, partition)
        assert set(cluster) <= set(declared) and len(cluster) <= 4, (name, cluster)


def test_bigquery_warehouse_maps_are_json_columns(engines):
    # A map is a JSON column, raw or in a mart, never JSON text (STRING): BigQuery subscripts
    # a JSON column by key (labels['team']) and refuses a STRING one.
    client, dataset = engines.bq.client, engines.bq.dataset_id
    for table, column in (
        ("billing_line_items", "labels"),
        ("billing_line_items", "system_labels"),
        ("jobs", "labels"),
        ("cost_explorer_rows", "labels"),
    ):
        fields = {f.name: f.field_type for f in client.get_table(f"{dataset}.{table}").schema}
        assert fields[column] == "JSON", (table, column)
    team = engines.bq.query(
        "SELECT count(*) AS n FROM cost_explorer_rows WHERE labels['team'] IS NOT NULL"
    )
    duck = engines.duck.query(
        "SELECT count(*) AS n FROM cost_explorer_rows WHERE labels['team'] IS NOT NULL"
    )
    assert team["n"][0].as_py() == duck["n"][0].as_py() > 0


def test_bigquery_warehouse_mart_built_unpartitioned_before_is_dropped_first(
    engines, monkeypatch: pytest.MonkeyPatch
):
    # An earlier version built cost_per_run unpartitioned: BigQuery refuses CREATE OR REPLACE
    # with another partitioning, so build_mart drops it first (through the real client), once;
    # a rebuild with the same layout drops nothing.
    w = engines.bq
    rows = w.query("SELECT count(*) AS n FROM cost_per_run")["n"][0].as_py()
    bq.drop_table(w.client, w.table_id("cost_per_run"))  # as an earlier version left it:
    w.execute("CREATE TABLE cost_per_run AS SELECT 'r' AS run_id")  # unpartitioned
    assert bq.table_layout(w.client, w.table_id("cost_per_run")) == (None, None, ())
    dropped: list[str] = []
    real = bq.drop_table

    def drop_table(client, table: str) -> None:  # noqa: ANN001
        dropped.append(table)
        real(client, table)

    monkeypatch.setattr(bq, "drop_table", drop_table)
    assert w.build_mart("cost_per_run") == rows
    assert w.build_mart("cost_per_run") == rows
    assert dropped == [w.table_id("cost_per_run")]
    assert bq.table_layout(w.client, w.table_id("cost_per_run")) == (
        "run_day",
        "DAY",
        ("team", "project_id", "run_id"),
    )


def test_bigquery_warehouse_scratch_and_staging_tables_expire(
    engines, monkeypatch: pytest.MonkeyPatch
):
    # A run killed between making a staging or scratch table and dropping it leaves it behind:
    # each is made with an expiry a day on (bq.SCRATCH_EXPIRY), so BigQuery deletes it itself.
    # bqemulator keeps no expiry (get_table(...).expires is None there), so what is checked is
    # what the real client sends: the Table of each create_table, the OPTIONS of each CREATE
    # TABLE AS; on a real project (bigquery_live), the expiry BigQuery then records as well.
    w = engines.bq
    tables: list[Any] = []
    statements: list[str] = []
    create_table, query = w.client.create_table, w.client.query

    def recording_create_table(table, *args, **kwargs):  # noqa: ANN001, ANN202
        tables.append(table)
        return create_table(table, *args, **kwargs)

    def recording_query(sql, *args, **kwargs):  # noqa: ANN001, ANN202
        statements.append(sql)
        return query(sql, *args, **kwargs)

    monkeypatch.setattr(w.client, "create_table", recording_create_table)
    monkeypatch.setattr(w.client, "query", recording_query)
    before = datetime.now(UTC)
    jobs = engines.duck.query("SELECT * FROM jobs")
    assert w.insert_new("jobs", jobs, "run_id") == 0  # staged, then nothing new taken
    from_arrow, from_query = w.create_scratch("probe"), w.create_scratch("probe")
    w.scratch_from_arrow(from_arrow, pa.table({"sku": ["a"], "rate": [Decimal("1.5")]}))
    w.scratch_from_query(from_query, "SELECT 1 AS one", {})
    made_tables = [(t.table_id.split("__")[1].split("_")[0], t.expires) for t in tables]
    if not bq.is_emulated(w.client):  # BigQuery's clock: a day on, give or take a minute
        recorded = w.client.get_table(from_query).expires
        assert recorded is not None and recorded > before + timedelta(hours=23, minutes=59)
    w.drop_scratch(from_arrow)
    w.drop_scratch(from_query)
    after = datetime.now(UTC)
    assert sorted(kind for kind, _ in made_tables) == ["incoming", "scratch"], made_tables
    for _, expires in made_tables:
        assert before + timedelta(days=1) <= expires <= after + timedelta(days=1)
    made = [s for s in statements if s.startswith(f"CREATE TABLE `{from_query}`")]
    assert len(made) == 1
    assert made[0].startswith(
        f"CREATE TABLE `{from_query}` OPTIONS(expiration_timestamp = "
        "TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 86400 SECOND)) AS\n"
    )
    assert not [
        t.table for t in w.catalogue() if "__incoming_" in t.table or "__scratch_" in t.table
    ]
