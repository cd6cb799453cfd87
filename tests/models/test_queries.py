"""models/queries: every query plans on the real schema, binds exactly the parameters its
callers pass, and the budget-scope queries sum hand-written billing rows.

One warehouse is built by the real pipeline from the rows below, with every budget, rule
and telemetry check switched on, while each warehouse call is recorded; then the readers
the pipeline does not run (the headline, the alerts command, the notifier) read it too.

Billing (USD; project ml-prod unless said; GPU rows are an 8-GPU VM for one hour):
  r1  2026-10-01 00:00  vm-1  GPU   cost 10, credit -2   labels team=llm, env=prod
  r2  2026-10-01 05:00  vm-1  GPU   cost 5.50            labels team=llm
  r3  2026-10-02 00:00  vm-2  GPU   cost 7               labels team=vision, env=prod  (cv-prod)
  r4  2026-10-02 03:00  -     Tax   cost 3               no labels (team __unallocated__)
Jobs: run llm-1 (team llm, pretraining, label experiment=e1) holds all 8 GPUs of vm-1
from 00:00 to 01:00 on 2026-10-01, so r1's hour is all its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal as D
from pathlib import Path
from typing import Any

import pytest
import sqlglot

from flopledger import models
from flopledger.budgets.alerts import all_alerts
from flopledger.budgets.budget_file import Scope, load_budgets
from flopledger.budgets.delivery_store import DeliveryStore
from flopledger.budgets.notify import deliver_pending, record_deliveries
from flopledger.budgets.spend import scoped_daily_spend
from flopledger.cli.headline import headline_lines
from flopledger.pipelines.resources import Flopledger
from flopledger.pipelines.runner import run_pipeline
from flopledger.reports.month import read_month
from flopledger.settings import load_config
from flopledger.warehouse import Warehouse, incremental, open_warehouse
from flopledger.warehouse.duckdb import DuckDBWarehouse
from tests.conftest import billing_row, credit, run_record, write_ndjson
from tests.dashboards.test_dashboard_sql import named_queries_run

NOW = datetime(2026, 10, 3, 6, 0)
GPU = "Nvidia H100 80GB GPU running in Americas"
OCT1, OCT2 = date(2026, 10, 1), date(2026, 10, 2)

CONFIG = """
warehouse: {kind: duckdb, path: w.duckdb}
budgets: budgets.yaml
sources:
  gcp_billing: {paths: [billing/*.ndjson]}
  jobs: {paths: [jobs/*.jsonl]}
  nvml_spool: {paths: [nvml/*.jsonl]}
  cloud_monitoring: {paths: [cloud_monitoring/*.json]}
  probes: {paths: [probes/*.jsonl]}
  managed_inference: {paths: [managed/*.ndjson]}
  focus: {paths: [focus/*.csv]}
"""

BUDGETS = """
channels:
  oncall: {kind: json, url_env: FLOPLEDGER_TEST_HOOK}
budgets:
  - {name: llm, scope: {team: llm}, amount: 20, channels: [oncall]}
  - {name: pretraining, scope: {workload_class: pretraining, labels: {experiment: e1}}, amount: 100}
rules:
  spend_change: [{name: jump, group_by: project, baseline_days: 1}]
  efficiency:
    - {name: idle, metric: idle_cost_share, above: 0.1}
    - {name: util, metric: mean_utilisation_pct, below: 50}
  health: {stale_after_hours: {gcp_billing: 1, nvml_spool: 1}}
"""


def _billing() -> list[dict[str, Any]]:
    llm_prod, vision_prod = {"team": "llm", "env": "prod"}, {"team": "vision", "env": "prod"}
    return [
        billing_row(
            hour="2026-10-01 00",
            sku=GPU,
            resource="vm-1",
            cost=10,
            credits=[credit(-2)],
            labels=llm_prod,
        ),
        billing_row(
            hour="2026-10-01 05", sku=GPU, resource="vm-1", cost="5.50", labels={"team": "llm"}
        ),
        billing_row(
            hour="2026-10-02 00",
            sku=GPU,
            resource="vm-2",
            cost=7,
            project="cv-prod",
            labels=vision_prod,
        ),
        billing_row(
            hour="2026-10-02 03", sku="Tax", resource=None, cost=3, cost_type="tax", labels={}
        ),
    ]


def _runs() -> list[dict[str, Any]]:
    return [
        run_record(
            "llm-1",
            started_at="2026-10-01T00:00:00Z",
            ended_at="2026-10-01T01:00:00Z",
            placements=[{"resource_name": "vm-1", "accelerators": 8}],
            labels={"experiment": "e1"},
        )
    ]


@dataclass
class Built:
    warehouse: Warehouse
    calls: list[tuple[str, Any]]  # (sql, params) of every warehouse query and statement


def _record(mp: pytest.MonkeyPatch, calls: list[tuple[str, Any]]) -> None:
    for method in ("query", "execute"):
        original = getattr(DuckDBWarehouse, method)

        def recording(self, sql, params=None, _original=original):
            calls.append((sql, params))
            return _original(self, sql, params)

        mp.setattr(DuckDBWarehouse, method, recording)


def _read_like_the_cli(warehouse: Warehouse, root: Path) -> None:
    """What `flopledger run`, `flopledger alerts` and the notifier sensor read."""
    assert headline_lines(warehouse, "USD")
    all_alerts(warehouse)
    all_alerts(warehouse, since=NOW)
    budgets = load_budgets(root / "budgets.yaml")
    env = {"FLOPLEDGER_TEST_HOOK": "http://hook.invalid/"}
    store = DeliveryStore(root / "alert_deliveries.sqlite")
    outcome = deliver_pending(warehouse, store, budgets, env, NOW, post=lambda url, payload: None)
    assert outcome.sent
    assert record_deliveries(warehouse, store)  # so the delivery update ran
    # `flopledger report month` and the month_report asset (reports/month.py)
    assert read_month(lambda sql, p: warehouse.query(sql, p).to_pylist(), date(2026, 10, 1)).invoice
    # `flopledger export focus` (cli/commands/export.py) reads its query with no parameters
    assert warehouse.query(models.query_sql("focus_costs_export")).num_rows > 0
    # `flopledger upgrade --apply` (cli/commands/upgrade.py) lists the migrations recorded
    assert warehouse.query(models.query_sql("migrations_recorded")).num_rows == 0  # none shipped


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("queries")
    write_ndjson(root / "billing" / "x.ndjson", _billing())
    write_ndjson(root / "jobs" / "runs.jsonl", _runs())
    for folder in ("nvml", "cloud_monitoring", "probes", "managed", "focus"):
        (root / folder).mkdir()
    # A gateway log with no request yet: a file its source has not read before, so the run
    # records what it held (ingest/file_marks.py).
    (root / "managed" / "gateway.ndjson").write_text("")
    (root / "budgets.yaml").write_text(BUDGETS)
    (root / "flopledger.yaml").write_text(CONFIG)
    config = load_config(root / "flopledger.yaml")
    calls: list[tuple[str, Any]] = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Flopledger, "now", lambda self: NOW)
        _record(mp, calls)
        report = run_pipeline(config, root / "flopledger.yaml")
        assert report.succeeded, report.failures
        warehouse = open_warehouse(config.warehouse)
        _read_like_the_cli(warehouse, root)
        # A daily run's build of a run-grained mart for a day (a backfill's forced day): it
        # reads the changes since its last build, then the runs covering the day.
        assert incremental.build(warehouse, "cost_per_run", days=[OCT1]).scope.runs == ("llm-1",)
    return Built(warehouse, calls)


@pytest.fixture(scope="module")
def empty_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    """Every raw table and every mart, all empty."""
    warehouse = DuckDBWarehouse(tmp_path_factory.mktemp("empty") / "w.duckdb")
    warehouse.ensure_schema()
    for mart in models.marts():
        warehouse.build_mart(mart.name)
    return warehouse


QUERIES = models.QUERIES.names()
# BigQuery's own bookkeeping writes: DuckDB records its changes inside each write's
# transaction (warehouse/duckdb.py), so only tests/warehouse/test_bigquery_incremental.py,
# on the emulator, runs these.
BIGQUERY_ONLY = ("bookkeeping_record_days", "bookkeeping_record_whole")


@pytest.mark.parametrize("name", QUERIES)
def test_query_plans_on_the_schema(empty_warehouse: Warehouse, name: str) -> None:
    # PREPARE parses and binds (tables, columns, functions) without needing parameter values.
    empty_warehouse.execute(f"PREPARE planned AS\n{models.query_sql(name)}")


@pytest.mark.parametrize("name", QUERIES)
def test_query_reads_as_duckdb_for_the_bigquery_transpiler(name: str) -> None:
    assert sqlglot.transpile(models.query_sql(name), read="duckdb", write="bigquery")


@pytest.mark.parametrize("name", QUERIES)
def test_header_documents_every_parameter(name: str) -> None:
    assert set(models.QUERIES.file(name).params) == models.QUERIES.file(name).params_used()


@pytest.mark.parametrize("name", QUERIES)
def test_callers_bind_exactly_the_query_parameters(built: Built, name: str) -> None:
    sql = models.query_sql(name)
    bound = [set(params or {}) for text, params in built.calls if text == sql]
    # A figure's query only the pages run is bound there (test_dashboard_sql checks the names).
    assert bound or name in named_queries_run() or name in BIGQUERY_ONLY, (
        f"{name}: no caller ran it"
    )
    assert all(keys == models.QUERIES.params(name) for keys in bound), bound


def test_unknown_query_names_are_refused() -> None:
    for name in ("no_such_query", "../marts/books", "billing_spend_by_day.sql"):
        with pytest.raises(KeyError):
            models.query_sql(name)


def _spend(
    built: Built, group_by: str | None = None, **scope: Any
) -> dict[tuple[str | None, date], D]:
    return scoped_daily_spend(built.warehouse, Scope(**scope), group_by)


def test_billing_scope_sums_the_rows_it_matches(built: Built) -> None:
    # teams=[llm]: r1 + r2 = (10 - 2) + 5.50 = 13.50, all on Oct 1.
    assert _spend(built, team=["llm"]) == {(None, OCT1): D("13.50")}
    # Empty scope: Oct 1 = 13.50; Oct 2 = r3 + r4 = 7 + 3 = 10.
    assert _spend(built) == {(None, OCT1): D("13.50"), (None, OCT2): D("10")}
    # A row without a team label is team __unallocated__: r4 = 3.
    assert _spend(built, team=["__unallocated__"]) == {(None, OCT2): D("3")}
    # project cv-prod: r3 = 7.
    assert _spend(built, project=["cv-prod"]) == {(None, OCT2): D("7")}
    # label env=prod: r1 = 8 on Oct 1, r3 = 7 on Oct 2; with team=llm too, r1 only.
    assert _spend(built, labels={"env": "prod"}) == {(None, OCT1): D("8"), (None, OCT2): D("7")}
    assert _spend(built, labels={"env": "prod", "team": "llm"}) == {(None, OCT1): D("8")}
    assert _spend(built, labels={"env": "dev"}) == {}


def test_billing_scope_groups_by_the_named_column(built: Built) -> None:
    # team: llm 13.50 (Oct 1); vision 7 and __unallocated__ 3 (Oct 2).
    assert _spend(built, "team") == {
        ("llm", OCT1): D("13.50"),
        ("vision", OCT2): D("7"),
        ("__unallocated__", OCT2): D("3"),
    }
    # project: ml-prod 13.50 (Oct 1) and 3 (Oct 2, r4); cv-prod 7 (Oct 2).
    assert _spend(built, "project") == {
        ("ml-prod", OCT1): D("13.50"),
        ("ml-prod", OCT2): D("3"),
        ("cv-prod", OCT2): D("7"),
    }


def test_workload_class_scope_sums_the_cost_allocated_to_its_runs(built: Built) -> None:
    # llm-1 holds 8 x 3600 = 28,800 of r1's 28,800 paid GPU-seconds: all of 10 - 2 = 8.
    assert _spend(built, workload_class=["pretraining"]) == {(None, OCT1): D("8")}
    e1, e2 = {"experiment": "e1"}, {"experiment": "e2"}
    assert _spend(built, workload_class=["pretraining"], labels=e1) == {(None, OCT1): D("8")}
    assert _spend(built, workload_class=["pretraining"], labels=e2) == {}
    assert _spend(built, workload_class=["pretraining"], team=["vision"]) == {}
    assert _spend(built, workload_class=["online_inference"]) == {}
