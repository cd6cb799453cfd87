"""The BigQuery warehouse builds by what changed too, on bqemulator through the real client: a
fleet's first day (a month's last) loaded without what comes late and built (whole: never
built), then its second (the next month's first, with its committed-use fee) with what came
late for the first (evening billing rows, a node's GPU samples restated) built by the two days'
windows (every query of that build that reads a day-partitioned table names the windows' days
in its filter), then its third. After every step every mart equals a full build of the same
rows on DuckDB (compared as the parity test compares).
"""

from __future__ import annotations

import re
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from google.cloud import bigquery

from flopledger import models
from flopledger.pipelines.marts.closed_months import watch
from flopledger.pipelines.runner import run_pipeline
from flopledger.settings import load_config
from flopledger.simulator import simulate
from flopledger.warehouse import incremental
from flopledger.warehouse.base import Warehouse
from flopledger.warehouse.bigquery import PARTITIONS, BigQueryWarehouse
from flopledger.warehouse.duckdb import DuckDBWarehouse
from tests.bigquery_emulator import PROJECT
from tests.warehouse.test_bigquery_warehouse_parity import _rows, _same

# Across a month's end: February's last day, then March's first two (March's committed-use
# fee comes with its first day).
DAY1, DAY2, DAY3 = date(2026, 2, 28), date(2026, 3, 1), date(2026, 3, 2)
FLEET = {"gpus": 8, "tpu_chips": 4, "days": 3, "start": DAY1, "telemetry": True}


@pytest.fixture(scope="module")
def duck(tmp_path_factory: pytest.TempPathFactory) -> DuckDBWarehouse:
    result = simulate(tmp_path_factory.mktemp("fleet"), **FLEET)  # type: ignore[arg-type]
    outcome = run_pipeline(load_config(result.config_path), result.config_path, full=True)
    assert outcome.succeeded, outcome.failures
    return DuckDBWarehouse(Path(result.config_path).parent / "warehouse.duckdb")


def _day(rows: pa.Table, column: str, day: date) -> pa.Table:
    days = pc.cast(rows[column], pa.date32())
    return rows.filter(pc.equal(days, pa.scalar(day, pa.date32())))


def _load(duck: DuckDBWarehouse, bq: Warehouse, day: date, late: bool = False) -> None:
    """The day's rows of every raw table, loaded as the sources load them; whole tables once.
    With `late`, what arrives late is held back: the billing rows from 20:00 on (a late
    export) and the first node's GPU samples (a spool re-read later)."""
    for raw in models.raw_tables():
        rows = duck.query(f"SELECT * FROM {raw.name}")
        column = PARTITIONS.get(raw.name)
        if column is None:
            if day == DAY1:
                bq.replace_all(raw.name, rows)
            continue
        picked = _day(rows, column, day)
        if late and raw.name == "billing_line_items":
            picked = picked.filter(pc.less(pc.hour(picked["usage_start"]), 20))
        if late and raw.name == "gpu_samples":
            picked = picked.filter(pc.not_equal(picked["node"], picked["node"][0]))
        if raw.name == "billing_line_items":
            bq.insert_new(raw.name, picked, "row_id", day="usage_day")
        elif picked.num_rows:
            bq.replace_days(raw.name, column, [day], picked)


def _full_build_differs(bq: BigQueryWarehouse, ref: DuckDBWarehouse) -> dict:
    """The marts (rows, first differences) on which `bq` differs from `ref` rebuilt whole."""
    with ref.held():
        for mart in models.marts():
            incremental.build(ref, mart.name, full=True)
    differ = {}
    for mart in models.marts():
        a = _rows(ref.query(f"SELECT * FROM {mart.name}"))
        b = _rows(bq.query(f"SELECT * FROM {mart.name}"))
        wrong = [
            {k: (x[k], y[k]) for k in x if not _same(x[k], y[k])}
            for x, y in zip(a, b, strict=False)
        ]
        wrong = [w for w in wrong if w]
        if len(a) != len(b) or wrong:
            differ[mart.name] = (len(a), len(b), wrong[:2])
    return differ


def test_daily_loads_are_built_by_their_windows_and_equal_a_full_build(
    duck: DuckDBWarehouse,
    bigquery_emulator: Any,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
):
    fees = duck.query(
        "SELECT usage_day FROM billing_line_items WHERE is_commitment_fee ORDER BY usage_day"
    )["usage_day"].to_pylist()
    assert DAY2 in fees  # the month that starts on day 2 bills its committed-use fee
    bq = BigQueryWarehouse(PROJECT, "incremental", endpoint=bigquery_emulator.endpoint)
    bq.ensure_schema()
    ref = DuckDBWarehouse(tmp_path / "ref.duckdb")  # the same rows, rebuilt whole each step
    ref.ensure_schema()
    for target in (bq, ref):
        _load(duck, target, DAY1, late=True)
    first = {m.name: incremental.build(bq, m.name) for m in models.marts()}
    assert all(b.scope.whole for b in first.values())
    assert _full_build_differs(bq, ref) == {}

    # With day 2 comes what came late for day 1: its evening billing rows and its first
    # node's samples (the day restated whole). Day 1 and day 2 are rebuilt by day, no other.
    billing = _day(duck.query("SELECT * FROM billing_line_items"), "usage_day", DAY1)
    samples = _day(duck.query("SELECT * FROM gpu_samples"), "minute", DAY1)
    for target in (bq, ref):
        _load(duck, target, DAY2)
        assert target.insert_new("billing_line_items", billing, "row_id", day="usage_day") > 0
        target.replace_days("gpu_samples", "minute", [DAY1], samples)

    sent: list[str] = []
    real_query = bigquery.Client.query

    def recording(self: bigquery.Client, query: str, *args: Any, **kw: Any) -> Any:
        sent.append(query)
        return real_query(self, query, *args, **kw)

    monkeypatch.setattr(bigquery.Client, "query", recording)
    second = {m.name: incremental.build(bq, m.name) for m in models.marts()}
    monkeypatch.undo()

    assert second["spend_daily"].scope.days == (DAY1, DAY2)
    # The hourly steps may also take day 3, which rows loaded with day 2 reach (a run's
    # placement past midnight); never a day before day 1 or after day 3.
    for step in ("billing_hourly", "resource_hour_busy"):
        assert {DAY1, DAY2} <= set(second[step].scope.days) <= {DAY1, DAY2, DAY3}, step
    # Both months, whole: February's from its first day, March's to its last.
    assert second["team_chargeback"].scope.days[0] == DAY1.replace(day=1)
    assert second["team_chargeback"].scope.days[-1] == date(2026, 3, 31)
    scripts = [q for q in sent if q.startswith("BEGIN TRANSACTION")]
    assert scripts  # the windows' DELETE + INSERT scripts
    for script in scripts:
        reads = [t for t in PARTITIONS if f".{t} " in script or f".{t}\n" in script]
        if reads:  # a day-partitioned raw table read through the window's own days: a day
            # window is DAY1's and DAY2's, a month's starts on its first day, a run's on its
            # first day; none reaches before February or past March's end (a window's end,
            # exclusive: April 1)
            literals = {date.fromisoformat(d) for d in re.findall(r"'(\d{4}-\d\d-\d\d)'", script)}
            literals.discard(date.min)  # settings in force "since the start" (settings_history)
            assert literals, script[:300]
            assert all(date(2026, 2, 1) <= d <= date(2026, 4, 1) for d in literals), (
                sorted(literals),
                script[:300],
            )
    assert _full_build_differs(bq, ref) == {}

    for target in (bq, ref):
        _load(duck, target, DAY3)
    third = {m.name: incremental.build(bq, m.name) for m in models.marts()}
    assert third["spend_daily"].scope.days == (DAY3,)
    assert third["team_chargeback"].scope.days[0] == DAY3.replace(day=1)  # March only
    assert _full_build_differs(bq, ref) == {}

    # The closed-month watch (the marts job's closed_month_changes asset) on BigQuery: its
    # first look stores every month's figures and moves nothing (a month seen the first
    # time); they are the marts' own (each month's effective cost is spend_daily's sum).
    assert watch(bq, datetime(2026, 12, 2), 5, "test") == []
    stored = bq.query(
        "SELECT month, figure, value FROM bookkeeping.month_figures ORDER BY figure"
    ).to_pylist()
    for month in (DAY1.replace(day=1), DAY2.replace(day=1)):
        effective = duck.query(
            "SELECT sum(effective_cost) AS s FROM spend_daily "
            "WHERE CAST(date_trunc('month', day) AS DATE) = ?",
            [month],
        )["s"][0].as_py()
        assert {"month": month, "figure": "effective_cost", "value": effective} in stored
    teams = duck.query("SELECT count(*) AS n FROM team_chargeback")["n"][0].as_py()
    assert len(stored) == teams + 2
    assert watch(bq, datetime(2026, 12, 2), 5, "test") == []  # nothing changed since
