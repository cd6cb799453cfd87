"""A publish writes what changed since the file it is about to swap in was last published:
one changed day of a day-grained table is that day's rows, a dropped or new table is that
table; where writing the changes could be wrong or cost more, the file is copied whole. Either
way the snapshot's tables equal the live file's, and a reader never sees a publish half done.

Every warehouse here holds managed_costs (`-- @grain day: bucket_start`), one row a day for
2026-10-01 .. 04 at 1.00, 2.00, 3.00 and 4.00 (sum 10.00), and `ledger`, 100 rows n = 0 .. 99
(a table of no model: changed, it is written whole): 104 rows in all, every other raw table
empty. It has been published twice, so both files exist: first -a, then -b (the current one).
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from flopledger.warehouse.checksums import table_checksums
from flopledger.warehouse.duckdb import DuckDBWarehouse
from flopledger.warehouse.duckdb_snapshot import days_text, slots
from tests.conftest import HANG_S

D1, D2, D3, D4 = (date(2026, 10, d) for d in (1, 2, 3, 4))
SUM = "SELECT sum(amount) AS s FROM managed_costs"
NOW = datetime(2026, 10, 5)


def costs(*rows: tuple[str, date, str]) -> pa.Table:
    """managed_costs rows: (cost_id, the day of its bucket, amount)."""
    ids, days, amounts = zip(*rows, strict=True)
    starts = [datetime(d.year, d.month, d.day) for d in days]
    return pa.table(
        {
            "cost_id": pa.array(ids, pa.string()),
            "provider": pa.array(["openai"] * len(ids), pa.string()),
            "bucket_start": pa.array(starts, pa.timestamp("us")),
            "bucket_end": pa.array([s + timedelta(days=1) for s in starts], pa.timestamp("us")),
            "amount": pa.array([Decimal(a) for a in amounts], pa.decimal128(38, 9)),
            "currency": pa.array(["USD"] * len(ids), pa.string()),
        }
    )


def total(rows: pa.Table) -> Decimal:
    return rows.to_pylist()[0]["s"]


@pytest.fixture
def wh(tmp_path: Path) -> DuckDBWarehouse:
    warehouse = DuckDBWarehouse(tmp_path / "w.duckdb")
    warehouse.ensure_schema()
    warehouse.replace_days(
        "managed_costs",
        "bucket_start",
        [D1, D2, D3, D4],
        costs(("c1", D1, "1.00"), ("c2", D2, "2.00"), ("c3", D3, "3.00"), ("c4", D4, "4.00")),
    )
    warehouse.execute("CREATE TABLE ledger AS SELECT range AS n FROM range(100)")
    first, second = warehouse.publish_snapshot(), warehouse.publish_snapshot()
    assert first.summary() == "full copy (w.snapshot-a.duckdb does not exist yet)"
    assert second.summary() == "full copy (w.snapshot-b.duckdb does not exist yet)"
    return warehouse


def same_as_live(wh: DuckDBWarehouse) -> bool:
    return table_checksums(wh.snapshot_path) == table_checksums(wh.path)


def change_day_two(wh: DuckDBWarehouse) -> None:
    wh.replace_days("managed_costs", "bucket_start", [D2], costs(("c2", D2, "20.50")))


def test_one_changed_day_is_all_the_next_publish_writes(wh: DuckDBWarehouse) -> None:
    a, b = slots(wh.snapshot_path)
    assert os.path.samefile(wh.snapshot_path, b)
    change_day_two(wh)
    published = wh.publish_snapshot()  # into -a, published before -b: it takes in both since
    assert published.how == "changes"
    assert published.applied == ("managed_costs: 2026-10-02",)
    assert os.path.samefile(wh.snapshot_path, a)
    assert same_as_live(wh)
    assert total(wh.read_query(SUM)) == Decimal("28.50")  # 1.00 + 20.50 + 3.00 + 4.00
    # -b was published before that change: it takes in the same day
    assert wh.publish_snapshot().summary() == "changes: managed_costs: 2026-10-02"
    assert os.path.samefile(wh.snapshot_path, b)
    assert same_as_live(wh)
    # -a has it already: nothing to write but the seq
    assert wh.publish_snapshot().summary() == "changes: nothing changed"
    assert same_as_live(wh)


def test_a_reader_keeps_the_old_snapshot_until_it_reopens(wh: DuckDBWarehouse) -> None:
    reader = wh.reader()
    try:
        assert total(reader.query(SUM)) == Decimal("10.00")
        before = reader.version()
        old = duckdb.connect(":memory:")  # a reader's connection to the file as published (-b)
        old.execute(f"ATTACH '{wh.snapshot_path}' AS s (READ_ONLY)")
        change_day_two(wh)
        assert wh.publish_snapshot().how == "changes"  # written into -a; -b untouched
        assert old.execute("SELECT sum(amount) FROM s.managed_costs").fetchone() == (
            Decimal("10.00"),
        )
        old.close()
        assert reader.version() != before
        assert total(reader.query(SUM)) == Decimal("28.50")
        middle = reader.version()
        # The next publish writes into -b again: the same inode comes back, a new version.
        wh.replace_days("managed_costs", "bucket_start", [D4], costs(("c4", D4, "4.25")))
        assert wh.publish_snapshot().applied == ("managed_costs: 2026-10-02, 2026-10-04",)
        assert reader.version() not in (before, middle)
        assert total(reader.query(SUM)) == Decimal("28.75")  # 1.00 + 20.50 + 3.00 + 4.25
    finally:
        reader.close()


def test_a_missing_file_is_copied_whole(wh: DuckDBWarehouse) -> None:
    a, _ = slots(wh.snapshot_path)
    a.unlink()
    change_day_two(wh)
    assert wh.publish_snapshot().summary() == "full copy (w.snapshot-a.duckdb does not exist yet)"
    assert same_as_live(wh)
    assert total(wh.read_query(SUM)) == Decimal("28.50")


HOLD = """
import sys, duckdb
con = duckdb.connect(":memory:")
con.execute("ATTACH '" + sys.argv[1] + "' AS s (READ_ONLY)")
print(con.execute("SELECT sum(amount) FROM s.managed_costs").fetchone()[0], flush=True)
sys.stdin.readline()
print(con.execute("SELECT sum(amount) FROM s.managed_costs").fetchone()[0], flush=True)
"""


def test_a_file_another_process_holds_is_copied_whole_past_it(wh: DuckDBWarehouse) -> None:
    a, _ = slots(wh.snapshot_path)  # a reader since two publishes ago still has -a open
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(a)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdin is not None
        assert holder.stdout.readline().strip() == "10.000000000"
        change_day_two(wh)
        published = wh.publish_snapshot()
        assert (
            published.summary() == f"full copy (process {holder.pid} has w.snapshot-a.duckdb open)"
        )
        assert same_as_live(wh)
        assert total(wh.read_query(SUM)) == Decimal("28.50")
        holder.stdin.write("\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "10.000000000"  # its old file, whole
    finally:
        holder.communicate(timeout=HANG_S)


def test_a_file_a_reader_of_this_process_holds_is_copied_whole(wh: DuckDBWarehouse) -> None:
    change_day_two(wh)
    assert wh.publish_snapshot().how == "changes"  # -a now current
    reader = wh.reader()
    try:
        assert total(reader.query(SUM)) == Decimal("28.50")  # the reader has -a open
        assert wh.publish_snapshot().how == "changes"  # into -b
        published = wh.publish_snapshot()  # into -a, which the reader still has open
        assert published.summary() == (
            "full copy (a reader in this process has w.snapshot-a.duckdb open)"
        )
        assert same_as_live(wh)
        assert total(reader.query(SUM)) == Decimal("28.50")
    finally:
        reader.close()


def test_more_than_half_the_rows_changed_is_a_whole_copy(wh: DuckDBWarehouse) -> None:
    wh.replace_all("ledger", pa.table({"n": pa.array(range(1, 101), pa.int64())}))
    # ledger is written whole: 100 of the 104 rows, over half
    assert wh.publish_snapshot().summary() == "full copy (100 of 104 rows changed)"
    assert same_as_live(wh)


def test_a_dropped_a_new_and_a_reshaped_table(wh: DuckDBWarehouse) -> None:
    wh.execute("DROP TABLE managed_requests")
    wh.execute("CREATE TABLE extra AS SELECT 7 AS n")
    wh.execute("COMMENT ON TABLE extra IS 'seven'")
    wh.execute("ALTER TABLE managed_costs ADD COLUMN note VARCHAR")
    published = wh.publish_snapshot()  # extra's 1 row and managed_costs' 4: 5 of 105 rows
    assert published.how == "changes"
    assert published.applied == (
        "extra: created",
        "managed_costs: remade",
        "managed_requests: dropped",
    )
    assert same_as_live(wh)
    tables = {t.table: t for t in wh.catalogue()}
    assert "managed_requests" not in tables
    assert tables["extra"].comment == "seven"
    assert [c.column for c in tables["managed_costs"].columns][-1] == "note"
    assert tables["managed_costs"].comment.startswith("One bucket of a provider's cost export")
    assert wh.read_query("SELECT n FROM extra").to_pylist() == [{"n": 7}]


def test_days_written_read_as_runs_of_consecutive_days() -> None:
    days = [date(2026, 10, 1), date(2026, 10, 2), date(2026, 10, 3), date(2026, 10, 5)]
    assert days_text(days) == "2026-10-01 .. 2026-10-03, 2026-10-05"


def test_a_new_macro_is_a_whole_copy(wh: DuckDBWarehouse) -> None:
    wh.execute("CREATE MACRO plus_one(x) AS x + 1")  # as a changed models/functions.sql would
    assert wh.publish_snapshot().summary() == (
        "full copy (its macros or views differ from the live file's)"
    )
    assert wh.read_query("SELECT plus_one(1) AS n").to_pylist() == [{"n": 2}]


def test_a_statement_run_through_execute_is_taken_in(wh: DuckDBWarehouse) -> None:
    # as budgets/notify.py records an alert's delivery: the table it names is written whole
    wh.execute("UPDATE managed_costs SET amount = amount * 2 WHERE cost_id = 'c3'")
    assert wh.publish_snapshot().summary() == "changes: managed_costs: whole"
    assert total(wh.read_query(SUM)) == Decimal("13.00")  # 1.00 + 2.00 + 6.00 + 4.00
    assert same_as_live(wh)
    wh.execute("CHECKPOINT")  # SQLGlot cannot say what it writes: any table may have changed
    assert wh.publish_snapshot().summary() == (
        "full copy (a statement changed tables it does not name)"
    )


def test_a_live_file_rebuilt_since_is_copied_whole(wh: DuckDBWarehouse) -> None:
    wh.path.unlink()  # the warehouse built again from nothing: its changes numbered afresh
    wh.ensure_schema()
    wh.replace_days("managed_costs", "bucket_start", [D1], costs(("c1", D1, "5.00")))
    wh.execute("CREATE TABLE ledger AS SELECT range AS n FROM range(100)")
    wh.execute("CREATE TABLE more AS SELECT 1 AS n")  # so live's seq is past -a's
    published = wh.publish_snapshot()
    assert published.summary() == (
        "full copy (the live file was rebuilt since: other changes under its numbers)"
    )
    assert same_as_live(wh)
    assert total(wh.read_query(SUM)) == Decimal("5.00")


def test_a_changed_day_of_a_table_of_spans_is_that_days_rows(
    wh: DuckDBWarehouse, tmp_path: Path
) -> None:
    """billing_line_items' rows cover spans (`-- @grain day: usage_start .. usage_end`): a late
    row for one day is that day's rows in the next publish, not the table whole."""
    from flopledger.collectors.gcp_billing.read import read_billing_files
    from tests.conftest import billing_row, write_ndjson

    def load(name: str, rows: list[dict]) -> None:
        table, _ = read_billing_files([write_ndjson(tmp_path / name, rows)], ingested_at=NOW)
        wh.insert_new("billing_line_items", table, "row_id")

    load("a.ndjson", [billing_row(hour=f"2026-10-0{d} 10", cost=d) for d in (1, 2, 3)])
    wh.publish_snapshot()
    wh.publish_snapshot()  # both files hold the three days
    load("late.ndjson", [billing_row(hour="2026-10-02 11", cost=5)])
    published = wh.publish_snapshot()
    assert published.how == "changes"
    assert published.applied == ("billing_line_items: 2026-10-02",)
    assert same_as_live(wh)
    cost = "SELECT sum(cost) AS s FROM billing_line_items"
    assert total(wh.read_query(cost)) == Decimal("11")  # 1 + 2 + 3 + 5


def test_the_change_log_is_appended_to_and_stays_the_live_files(wh: DuckDBWarehouse) -> None:
    # bookkeeping.changes grows with every write of history: a publish adds the rows after the
    # other file's seq instead of copying the log whole, and both files' logs stay the same.
    log = "SELECT seq, table_name, day, recorded_at FROM {}bookkeeping.changes ORDER BY ALL"

    def logs() -> tuple[list, list]:
        con = duckdb.connect(str(wh.snapshot_path), read_only=True)
        try:
            published = con.execute(log.format("")).fetchall()
        finally:
            con.close()
        return published, wh.query(log.format("")).to_pylist()

    change_day_two(wh)
    wh.publish_snapshot()
    wh.replace_days("managed_costs", "bucket_start", [D3], costs(("c3", D3, "30.00")))
    assert wh.publish_snapshot().applied == ("managed_costs: 2026-10-02 .. 2026-10-03",)
    published, live = logs()
    assert [tuple(r.values()) for r in live] == published
    # The two writes since the fixture's publishes: day 2 then day 3, under two new seqs.
    assert [(r[1], r[2]) for r in published[-2:]] == [("managed_costs", D2), ("managed_costs", D3)]
    assert published[-1][0] == published[-2][0] + 1
