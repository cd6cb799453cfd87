"""Marts built by what changed (warehouse/incremental.py) equal a full build, and rebuild only
what changed: a hand-worked scenario (two runs, one spanning three days, a late billing row),
and a sequence of daily loads of a simulated fleet across a month's end with late rows and a
restated older day, compared with a full rebuild after every step (warehouse/checksums.py: every
table, to the nano-dollar).

The models are built as pipelines/marts/assets.py builds them, without Dagster: settings and
specs, then every model in order through `incremental.build`.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from flopledger import models
from flopledger.ingest.settings_history import record
from flopledger.pipelines.runner import run_pipeline
from flopledger.settings import load_config
from flopledger.simulator import simulate
from flopledger.warehouse import incremental
from flopledger.warehouse.bigquery import PARTITIONS
from flopledger.warehouse.checksums import table_checksums
from flopledger.warehouse.duckdb import DuckDBWarehouse
from tests.models.conftest import SETTINGS, SETTINGS_RECORDED_AT, SPECS, Books
from tests.models.rows import gpu, run, split_runs

D1, D2, D3 = date(2026, 10, 1), date(2026, 10, 2), date(2026, 10, 3)


def build_marts(warehouse: DuckDBWarehouse, full: bool = False) -> dict[str, incremental.Built]:
    """Every model, in order, for what changed (everything with `full`), the file held open
    meanwhile as a run holds it (each call's connection joins it rather than opening it)."""
    with warehouse.held():
        return {m.name: incremental.build(warehouse, m.name, full=full) for m in models.marts()}


def full_rebuild_differs(warehouse: DuckDBWarehouse, scratch: Path) -> dict[str, object]:
    """The tables (by checksum) that differ between `warehouse` and a copy of it whose models
    were all rebuilt whole: {} when the incremental warehouse equals the full build."""
    copy = scratch / "full.duckdb"
    shutil.copyfile(warehouse.path, copy)
    build_marts(DuckDBWarehouse(copy), full=True)
    ours, theirs = table_checksums(warehouse.path), table_checksums(copy)
    copy.unlink()
    return {
        t: (ours.get(t), theirs.get(t))
        for t in ours.keys() | theirs.keys()
        if ours.get(t) != theirs.get(t)
    }


def changed_days(warehouse: DuckDBWarehouse, table: str, since: int) -> set[date | None]:
    return warehouse.pending_changes([table], since)


class Scenario(Books):
    """Books whose raw rows arrive day by day, loaded as the sources load them: billing rows
    appended by row id (insert_new), runs replaced by their submission day."""

    def load_day(self, billing: list[dict], runs: list[dict]) -> None:
        self.warehouse.insert_new(
            "billing_line_items", self.table("billing_line_items", billing), "row_id"
        )
        jobs, placements = split_runs(runs)
        days = sorted({j["submitted_day"] for j in jobs})
        if jobs:
            self.warehouse.replace_days("jobs", "submitted_day", days, self.table("jobs", jobs))
            self.warehouse.replace_days(
                "job_placements", "submitted_day", days, self.table("job_placements", placements)
            )

    def table(self, name: str, rows: list[dict]) -> pa.Table:
        schema = self.warehouse.query(f"SELECT * FROM {name} LIMIT 0").schema
        return pa.Table.from_pylist(rows, schema=schema)

    def settle(self) -> dict[str, incremental.Built]:
        """The marts run: settings and specs (unchanged rows change nothing), every model."""
        with self.held():
            record(self.warehouse, SETTINGS, SETTINGS_RECORDED_AT, 5)  # unchanged: nothing moves
            self._load("accelerator_specs", SPECS)
            from flopledger.ingest.gcp_billing.skus import classify_unclassified

            classify_unclassified(self.warehouse)
            return build_marts(self.warehouse)


def rows_of(scenario: Scenario, sql: str) -> list[dict]:
    return scenario.rows(sql)


def test_a_late_row_rebuilds_its_day_and_the_run_that_held_it(tmp_path: Path):
    """vm-1's 8 GPUs are held by run long-1 from day 1 09:00 to day 3 11:00; vm-2's by run
    short-1 on day 2 only. Each day bills one GPU hour at 10:00 (vm-1 80 USD, vm-2 40 USD on day
    2). After day 3's run a late row arrives for day 2 (vm-1 14:00, 16 USD): by hand, long-1
    costs 80 x 3 + 16 = 256 USD, short-1 still 40; spend on day 2 is 80 + 40 + 16 = 136; days 1
    and 3 keep 80 each. Only day 2 is rebuilt, and the warehouse equals a full build."""
    s = Scenario(tmp_path / "w")
    s.warehouse.ensure_schema()
    long_run = run("long-1", "2026-10-01T09:00:00Z", "2026-10-03T11:00:00Z")
    short_run = run("short-1", "2026-10-02T09:00:00Z", "2026-10-02T11:00:00Z", resource="vm-2")
    day1 = [{"row_id": "d1", **gpu("2026-10-01 10", Decimal("80"))}]
    day2 = [
        {"row_id": "d2", **gpu("2026-10-02 10", Decimal("80"))},
        {"row_id": "d2b", **gpu("2026-10-02 10", Decimal("40"), resource="vm-2")},
    ]
    day3 = [{"row_id": "d3", **gpu("2026-10-03 10", Decimal("80"))}]
    s.load_day(day1, [long_run])
    first = s.settle()
    assert all(b.scope.whole for b in first.values())  # never built: everything, whole
    s.load_day(day2, [short_run])
    s.settle()
    s.load_day(day3, [])
    s.settle()
    assert full_rebuild_differs(s.warehouse, tmp_path) == {}
    before = s.warehouse.bookkeeping_seq()

    s.load_day([{"row_id": "late", **gpu("2026-10-02 14", Decimal("16"))}], [])
    late = s.settle()

    assert changed_days(s.warehouse, "billing_line_items", before) == {D2}
    for name in ("billing_hourly", "resource_hour_pool", "run_allocation", "spend_daily"):
        assert late[name].scope.days == (D2,), name  # its day-2 partition, nothing else
        assert late[name].windows == ((D2, D3),)
    assert changed_days(s.warehouse, "spend_daily", before) == {D2}
    # The runs whose time covers day 2, each read over its own days (long-1's three).
    assert set(late["cost_per_run"].scope.runs) == {"long-1", "short-1"}
    assert late["cost_per_run"].scope.days == (D1, D2, D3)
    # A model reading only what did not change builds nothing.
    assert late["resource_hour_busy"].scope.nothing
    costs = {
        r["run_id"]: r["effective_cost"]
        for r in rows_of(s, "SELECT run_id, effective_cost FROM cost_per_run")
    }
    assert costs == {"long-1": Decimal("256"), "short-1": Decimal("40")}
    spend = {
        r["day"]: r["effective_cost"]
        for r in rows_of(
            s, "SELECT day, sum(effective_cost) AS effective_cost FROM spend_daily GROUP BY day"
        )
    }
    assert spend == {D1: Decimal("80"), D2: Decimal("136"), D3: Decimal("80")}
    assert full_rebuild_differs(s.warehouse, tmp_path) == {}


def test_a_rerun_of_the_same_day_changes_nothing(tmp_path: Path):
    s = Scenario(tmp_path / "w")
    s.warehouse.ensure_schema()
    s.load_day([{"row_id": "d1", **gpu("2026-10-01 10", Decimal("80"))}], [run("r-1")])
    s.settle()
    seq = s.warehouse.bookkeeping_seq()
    s.load_day([{"row_id": "d1", **gpu("2026-10-01 10", Decimal("80"))}], [run("r-1")])
    again = s.settle()
    assert s.warehouse.bookkeeping_seq() == seq  # the same rows: no change recorded
    assert all(b.scope.nothing for b in again.values())


# A small fleet across a month's end (September 29 to October 3), GPUs, TPU slices, telemetry,
# committed-use fees, managed inference and an AWS FOCUS segment with a Savings Plan.
FLEET = {"gpus": 8, "tpu_chips": 4, "days": 5, "start": date(2026, 9, 29), "aws_gpus": 8}


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> DuckDBWarehouse:
    """Every raw table of the fleet, loaded by the real pipeline: what the days are cut from."""
    result = simulate(tmp_path_factory.mktemp("fleet"), **FLEET)  # type: ignore[arg-type]
    outcome = run_pipeline(load_config(result.config_path), result.config_path)
    assert outcome.succeeded, outcome.failures
    return DuckDBWarehouse(Path(result.config_path).parent / "warehouse.duckdb")


def _day_rows(source: DuckDBWarehouse, table: str, day: date) -> pa.Table:
    rows = source.query(f"SELECT * FROM {table}")
    days = pc.cast(rows[PARTITIONS[table]], pa.date32())
    return rows.filter(pc.equal(days, pa.scalar(day, pa.date32())))


def load_day(
    source: DuckDBWarehouse, target: DuckDBWarehouse, day: date, late_from: int | None = None
) -> pa.Table | None:
    """`day`'s rows of every partitioned raw table copied as the sources load them; with
    `late_from`, the day's billing rows from that hour on are held back and returned."""
    with target.held():
        return _load_day(source, target, day, late_from)


def _load_day(
    source: DuckDBWarehouse, target: DuckDBWarehouse, day: date, late_from: int | None
) -> pa.Table | None:
    held = None
    for table in PARTITIONS:
        rows = _day_rows(source, table, day)
        if table == "billing_line_items":
            if late_from is not None:
                late = pc.greater_equal(pc.hour(rows["usage_start"]), late_from)
                held, rows = rows.filter(late), rows.filter(pc.invert(late))
            target.insert_new(table, rows, "row_id")
        elif rows.num_rows:
            target.replace_days(table, PARTITIONS[table], [day], rows)
    return held


@pytest.fixture
def daily(fleet: DuckDBWarehouse, tmp_path: Path) -> Iterator[DuckDBWarehouse]:
    target = DuckDBWarehouse(tmp_path / "daily.duckdb")
    target.ensure_schema()
    for table in ("flopledger_settings", "settings_history", "accelerator_specs", "managed_prices"):
        target.replace_all(table, fleet.query(f"SELECT * FROM {table}"))
    yield target


def test_daily_loads_equal_a_full_build_after_every_step(
    fleet: DuckDBWarehouse, daily: DuckDBWarehouse, tmp_path: Path
):
    start = FLEET["start"]
    days = [start + timedelta(days=n) for n in range(FLEET["days"])]  # type: ignore[arg-type]
    late = load_day(fleet, daily, days[0])
    build_marts(daily)
    late = load_day(fleet, daily, days[1], late_from=20)  # its evening rows come late
    assert late is not None and late.num_rows > 0
    build_marts(daily)
    for day in days[2:4]:  # across the month's end
        load_day(fleet, daily, day)
        built = build_marts(daily)
        assert built["spend_daily"].scope.days == (day,)
        assert built["team_chargeback"].scope.days[0] == day.replace(day=1)  # its whole month
    assert full_rebuild_differs(daily, tmp_path) == {}
    seq = daily.bookkeeping_seq()
    daily.insert_new("billing_line_items", late, "row_id")  # day 2's late rows, two days on
    built = build_marts(daily)
    assert daily.pending_changes(["billing_line_items"], seq) == {days[1]}
    assert built["billing_hourly"].scope.days == (days[1],)
    assert full_rebuild_differs(daily, tmp_path) == {}
    for day in days[4:]:
        load_day(fleet, daily, day)
        build_marts(daily)
    # Day 1 restated five days on: one node's GPU minutes of it are gone from a re-read spool.
    samples = _day_rows(fleet, "gpu_samples", days[0])
    first_node = samples["node"][0].as_py()
    kept = samples.filter(pc.not_equal(samples["node"], first_node))
    seq = daily.bookkeeping_seq()
    daily.replace_days("gpu_samples", "minute", [days[0]], kept)
    built = build_marts(daily)
    assert daily.pending_changes(["gpu_samples"], seq) == {days[0]}
    assert built["resource_hour_busy"].scope.days == (days[0],)
    assert full_rebuild_differs(daily, tmp_path) == {}
