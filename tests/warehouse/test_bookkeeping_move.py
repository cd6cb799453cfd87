"""`settings_history` and `restatements` are the warehouse's bookkeeping (models/bookkeeping/),
apart from the tables people read: a warehouse made when they were main's tables has their rows
moved on its next ensure_schema, on DuckDB and on BigQuery (bqemulator, through the real
client), and unqualified names still find them."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import duckdb

from flopledger import models
from flopledger.clients import bigquery as bq
from flopledger.warehouse.bigquery import BigQueryWarehouse
from flopledger.warehouse.checksums import table_checksums
from flopledger.warehouse.duckdb import DuckDBWarehouse
from flopledger.warehouse.transpile import columns
from tests.bigquery_emulator import PROJECT, BigQueryEmulator

SETTINGS = [
    ("chargeback_policy", "proportional", None, "2026-10-01 06:00:00", "first recorded"),
    ("chargeback_policy", "even", "2026-11-01", "2026-11-03 06:00:00", "config changed"),
]
RESTATED = ("restate --from 2026-09-01 @ 2026-12-02T12:00:00", "2026-12-02 12:00:00",
            "2026-09-01", "2026-10-01", "chargeback_policy: proportional -> even")  # fmt: skip


def _ddl(name: str) -> str:
    return next(t.sql for t in models.bookkeeping_tables() if t.name == name)


def _old_duckdb(path: Path) -> None:
    """A warehouse file as an older flopledger left it: the two tables in main."""
    con = duckdb.connect(str(path))
    try:
        for name in ("settings_history", "restatements"):
            con.execute(_ddl(name))
        con.executemany("INSERT INTO settings_history VALUES (?, ?, ?, ?, ?)", SETTINGS)
        con.execute("INSERT INTO restatements VALUES (?, ?, ?, ?, ?)", RESTATED)
    finally:
        con.close()


def test_an_older_duckdb_warehouse_has_them_moved(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    _old_duckdb(path)
    warehouse = DuckDBWarehouse(path)
    warehouse.ensure_schema()
    warehouse.ensure_schema()  # a second run moves nothing twice
    con = duckdb.connect(str(path), read_only=True)
    try:
        where = con.execute(
            "SELECT schema_name, table_name FROM duckdb_tables() "
            "WHERE table_name IN ('settings_history', 'restatements') ORDER BY table_name"
        ).fetchall()
        moved = con.execute(
            "SELECT key, value, effective_from FROM bookkeeping.settings_history "
            "ORDER BY recorded_at"
        ).fetchall()
    finally:
        con.close()
    assert where == [("bookkeeping", "restatements"), ("bookkeeping", "settings_history")]
    assert moved == [
        ("chargeback_policy", "proportional", None),
        ("chargeback_policy", "even", date(2026, 11, 1)),
    ]
    # Unqualified, as the models and `flopledger sql` name them.
    found = warehouse.query("SELECT restatement_id, from_day FROM restatements").to_pylist()
    assert found == [{"restatement_id": RESTATED[0], "from_day": date(2026, 9, 1)}]
    # Not among the tables an incremental and a full build must equal.
    assert not {"settings_history", "restatements"} & set(table_checksums(path))


def test_an_older_bigquery_dataset_has_them_moved(bigquery_emulator: BigQueryEmulator) -> None:
    warehouse = BigQueryWarehouse(PROJECT, "moved", endpoint=bigquery_emulator.endpoint)
    client = warehouse.client
    client.create_dataset(f"{PROJECT}.moved", exists_ok=True)
    old = f"{PROJECT}.moved.settings_history"
    # As an older flopledger made it: from the same DDL, in the dataset people read.
    bq.create_table(client, old, columns(models.model("settings_history")), "", None, ())
    values = ", ".join(
        f"('{key}', '{value}', {'NULL' if day is None else f'DATE {day!r}'}, "
        f"CAST('{at}' AS TIMESTAMP), '{why}')"
        for key, value, day, at, why in SETTINGS
    )
    client.query(f"INSERT INTO `{old}` VALUES {values}").result()
    warehouse.ensure_schema()
    warehouse.ensure_schema()
    assert [t.table_id for t in client.list_tables(f"{PROJECT}.moved")].count(
        "settings_history"
    ) == 0
    moved = warehouse.query(
        "SELECT key, value, effective_from, recorded_at FROM settings_history ORDER BY recorded_at"
    ).to_pylist()
    assert moved == [
        {
            "key": "chargeback_policy",
            "value": "proportional",
            "effective_from": None,
            "recorded_at": datetime(2026, 10, 1, 6, tzinfo=UTC),
        },
        {
            "key": "chargeback_policy",
            "value": "even",
            "effective_from": date(2026, 11, 1),
            "recorded_at": datetime(2026, 11, 3, 6, tzinfo=UTC),
        },
    ]
