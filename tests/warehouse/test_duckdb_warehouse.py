"""The DuckDB warehouse on hand-written rows: how each write replaces or keeps rows, names
checked before they reach SQL, and readers that see the published snapshot only."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import pyarrow as pa
import pytest

from flopledger.warehouse import NoWarehouse, QueryError
from flopledger.warehouse.base import identifier, same_days
from flopledger.warehouse.duckdb import DuckDBWarehouse

D1, D2, D3 = date(2026, 10, 1), date(2026, 10, 2), date(2026, 10, 3)


def readings(*rows: tuple[str, datetime, int]) -> pa.Table:
    ids, at, value = zip(*rows, strict=True) if rows else ((), (), ())
    return pa.table(
        {"id": pa.array(ids, pa.string()), "taken_at": pa.array(at, pa.timestamp("us")),
         "value": pa.array(value, pa.int64())}
    )  # fmt: skip


@pytest.fixture
def wh(tmp_path: Path) -> DuckDBWarehouse:
    warehouse = DuckDBWarehouse(tmp_path / "w.duckdb")
    warehouse.ensure_schema()  # the bookkeeping every write records its changes in
    warehouse.execute("CREATE TABLE readings (id VARCHAR, taken_at TIMESTAMP, value BIGINT)")
    return warehouse


def content(wh: DuckDBWarehouse, table: str = "readings") -> list[tuple]:
    return [tuple(r.values()) for r in wh.query(f"SELECT * FROM {table} ORDER BY 1").to_pylist()]


def test_replace_days_replaces_exactly_the_named_utc_days(wh):
    wh.replace_all(
        "readings",
        readings(
            ("a", datetime(2026, 10, 1, 0, 0), 1),  # first instant of 10-01
            ("b", datetime(2026, 10, 1, 23, 59, 59, 999999), 2),  # last instant of 10-01
            ("c", datetime(2026, 10, 2, 0, 0), 3),  # first instant of 10-02
            ("d", datetime(2026, 10, 3, 12, 0), 4),  # 10-03: not named below
        ),
    )
    incoming = readings(("x", datetime(2026, 10, 1, 6), 10), ("y", datetime(2026, 10, 2, 6), 20))
    # 10-01 and 10-02 are replaced: a, b and c go, x and y come; d (10-03) stays.
    assert wh.replace_days("readings", "taken_at", [D1, D2], incoming) == 2
    after = [("d", datetime(2026, 10, 3, 12, 0), 4), ("x", datetime(2026, 10, 1, 6), 10),
             ("y", datetime(2026, 10, 2, 6), 20)]  # fmt: skip
    assert content(wh) == after
    # Rerunning the same days with the same rows changes nothing.
    assert wh.replace_days("readings", "taken_at", [D1, D2], incoming) == 2
    assert content(wh) == after
    # A named day with no incoming rows is emptied; the others stay.
    assert wh.replace_days("readings", "taken_at", [D3], readings()) == 0
    assert content(wh) == after[1:]


def test_replace_all_replaces_every_row(wh):
    wh.replace_all(
        "readings", readings(("a", datetime(2026, 10, 1), 1), ("b", datetime(2026, 10, 2), 2))
    )
    assert wh.replace_all("readings", readings(("c", datetime(2026, 10, 9), 3))) == 1
    assert content(wh) == [("c", datetime(2026, 10, 9), 3)]
    assert wh.replace_all("readings", readings()) == 0
    assert content(wh) == []


def test_insert_new_keeps_the_first_and_counts_only_new_rows(wh):
    wh.replace_all("readings", readings(("k1", datetime(2026, 10, 1), 1)))
    batch = readings(
        ("k1", datetime(2026, 10, 5), 99),  # already there: the stored row wins
        ("k2", datetime(2026, 10, 2), 2),
        ("k2", datetime(2026, 10, 2), 2),  # the same row twice in one batch: stored once
        ("k3", datetime(2026, 10, 3), 3),
    )
    # New keys: k2 and k3 -> 2 rows inserted (4 offered).
    assert wh.insert_new("readings", batch, "id") == 2
    assert content(wh) == [("k1", datetime(2026, 10, 1), 1), ("k2", datetime(2026, 10, 2), 2),
                           ("k3", datetime(2026, 10, 3), 3)]  # fmt: skip
    # The same batch again: nothing new.
    assert wh.insert_new("readings", batch, "id") == 0
    assert len(content(wh)) == 3


def test_insert_new_by_day_compares_only_the_incoming_days(tmp_path):
    wh = DuckDBWarehouse(tmp_path / "w.duckdb")
    wh.execute("CREATE TABLE keyed (id VARCHAR, day DATE)")
    wh.replace_all("keyed", pa.table({"id": ["k1", "k3"], "day": pa.array([D1, D1], pa.date32())}))
    batch = pa.table({"id": ["k1", "k2"], "day": pa.array([D1, D2], pa.date32())})
    # The batch's days are 10-01 and 10-02: k1 is stored on 10-01, k2 is new -> 1 inserted.
    assert wh.insert_new("keyed", batch, "id", day="day") == 1
    # A batch of 10-03 only is compared with 10-03's stored ids (none): k3, stored on 10-01,
    # goes in. (A billing row id hashes its day, so one id is never on two days.)
    late = pa.table({"id": ["k3"], "day": pa.array([D3], pa.date32())})
    assert wh.insert_new("keyed", late, "id", day="day") == 1
    assert content(wh, "keyed") == [("k1", D1), ("k2", D2), ("k3", D1), ("k3", D3)]
    # Without `day` the whole table is compared: k3 is there, nothing is new.
    assert wh.insert_new("keyed", late, "id") == 0
    assert same_days(batch, "day") == "day IN (DATE '2026-10-01', DATE '2026-10-02')"
    assert same_days(batch.slice(0, 0), "day") == "FALSE"


@pytest.mark.parametrize("name", ["x; DROP TABLE readings", "readings--", "a b", "1st", "", "t.c"])
def test_a_name_that_is_not_a_plain_identifier_is_refused(wh, name):
    with pytest.raises(ValueError, match="not a plain identifier"):
        identifier(name)
    row = readings(("a", datetime(2026, 10, 1), 1))
    with pytest.raises(ValueError, match="not a plain identifier"):
        wh.replace_all(name, row)
    with pytest.raises(ValueError, match="not a plain identifier"):
        wh.replace_days("readings", name, [D1], row)
    with pytest.raises(ValueError, match="not a plain identifier"):
        wh.insert_new("readings", row, name)
    assert content(wh) == []  # the table is still there, untouched


def test_plain_identifiers_pass_unchanged():
    assert [identifier(n) for n in ("jobs", "_x", "run_id2")] == ["jobs", "_x", "run_id2"]


def test_the_reader_reads_the_published_snapshot_not_the_live_file(wh):
    wh.replace_all("readings", readings(("a", datetime(2026, 10, 1), 1)))
    wh.publish_snapshot()
    reader = wh.reader()
    try:
        first = reader.version()
        assert reader.query("SELECT count(*) AS n FROM readings").to_pylist() == [{"n": 1}]
        # The pipeline writes a second row to the live file: readers do not see it yet.
        wh.insert_new("readings", readings(("b", datetime(2026, 10, 2), 2)), "id")
        assert wh.query("SELECT count(*) AS n FROM readings").to_pylist() == [{"n": 2}]
        assert reader.query("SELECT count(*) AS n FROM readings").to_pylist() == [{"n": 1}]
        assert reader.version() == first
        # Published: a new version, and the reader sees both rows.
        wh.publish_snapshot()
        assert reader.version() != first
        assert reader.query("SELECT count(*) AS n FROM readings").to_pylist() == [{"n": 2}]
    finally:
        reader.close()
    assert wh.read_query("SELECT sum(value) AS s FROM readings").to_pylist() == [{"s": 3}]


def test_before_any_snapshot_readers_get_a_clear_error_not_the_live_file(wh):
    # Reading the live file took a lock the first-ever run needed: readers wait for a snapshot.
    wh.replace_all("readings", readings(("a", datetime(2026, 10, 1), 7)))
    assert not wh.snapshot_path.exists()
    with pytest.raises(NoWarehouse, match="no snapshot published yet"):
        wh.read_query("SELECT value FROM readings")


@pytest.mark.parametrize(
    "sql",
    ["SELEC 1", "SELECT * FROM nowhere", "DROP TABLE readings", "INSERT INTO readings VALUES "
     "('z', NULL, 0)"],
)  # fmt: skip
def test_bad_sql_and_writes_through_a_reader_are_query_errors(wh, sql):
    wh.replace_all("readings", readings(("a", datetime(2026, 10, 1), 1)))
    wh.publish_snapshot()
    with pytest.raises(QueryError):
        wh.read_query(sql)
    assert content(wh) == [("a", datetime(2026, 10, 1), 1)]  # nothing written


def test_no_warehouse_when_nothing_exists(tmp_path):
    wh = DuckDBWarehouse(tmp_path / "never.duckdb")
    assert not wh.exists()
    with pytest.raises(NoWarehouse, match="no warehouse yet"):
        wh.read_query("SELECT 1")
    assert wh.reader().version() == ""
    assert list(tmp_path.iterdir()) == []  # reading created nothing


def test_ensure_schema_creates_the_raw_tables_with_comments_and_is_idempotent(tmp_path):
    wh = DuckDBWarehouse(tmp_path / "w.duckdb")
    wh.ensure_schema()
    wh.replace_all("flopledger_settings", pa.table({"key": ["run_label_key"], "value": ["run_id"]}))
    wh.ensure_schema()  # a second time keeps what is there
    assert content(wh, "flopledger_settings") == [("run_label_key", "run_id")]
    tables = {t.table: t for t in wh.catalogue()}
    assert "billing_line_items" in tables and "jobs" in tables
    # Comments come from the SQL files' headers (models/raw/jobs.sql).
    assert tables["jobs"].comment.startswith("One run: one attempt of a job")
    run_id = next(c for c in tables["jobs"].columns if c.column == "run_id")
    assert run_id.data_type == "VARCHAR" and run_id.comment.startswith("Unique id of the run")


def test_a_build_record_is_not_itself_a_change(wh):
    wh.ensure_schema()
    wh.execute("INSERT INTO readings VALUES ('a', NULL, 1)")  # recorded: readings, whole
    assert wh.pending_changes(["readings"], 0) == {None}
    seq = wh.bookkeeping_seq()
    wh.mark_built("spend_daily", "hash", seq, "whole", 3)  # the bookkeeping's own write
    assert wh.bookkeeping_seq() == seq
    assert wh.last_build("spend_daily") == ("hash", seq)
