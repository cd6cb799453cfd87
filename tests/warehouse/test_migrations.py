"""Explicit migrations of the raw tables (issue 39, item 4): applied once, in order, each in one
transaction with its record; a new warehouse records them as not needed; a failed one leaves
nothing half done; `flopledger upgrade` and `flopledger doctor` say what an upgrade needs.

The "older version" is made by hand: this version's tables, then the change undone (a column
renamed back, a column dropped, a type narrowed), as an older DDL would have left them."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import duckdb
import pytest

from flopledger import models
from flopledger.cli.main import main
from flopledger.models.sql_files import SqlFolder
from flopledger.warehouse.duckdb import DuckDBWarehouse
from tests.conftest import write_config

RENAME = """-- @query: Renames alerts.body to message (the name the payloads use).
ALTER TABLE alerts RENAME COLUMN body TO message;
"""
BROKEN = """-- @query: A migration that fails half way: its first statement must not stay.
ALTER TABLE alerts RENAME COLUMN body TO message;
UPDATE alerts SET alert_id = NULL;
"""


def _migrations(tmp_path: Path, **files: str) -> tuple[models.Migration, ...]:
    folder = tmp_path / "migrations"
    folder.mkdir()
    for name, text in files.items():
        (folder / f"{name}.sql").write_text(text)
    return models.migrations(SqlFolder(folder, "test migrations"))


def _older(path: Path) -> None:
    """A warehouse as an older version left it: alerts' message column still named body."""
    warehouse = DuckDBWarehouse(path)
    warehouse.ensure_schema()
    con = duckdb.connect(str(path))
    try:
        con.execute("ALTER TABLE alerts RENAME COLUMN message TO body")
        con.execute(
            "INSERT INTO alerts (alert_id, kind, subject, severity, title, body, details, "
            "channels, raised_at) VALUES ('a1', 'health', 's', 'warning', 't', 'the text', "
            "'{}', [], TIMESTAMP '2026-10-01 00:00:00')"
        )
        con.execute("DELETE FROM bookkeeping.migrations")
    finally:
        con.close()


def _rows(path: Path, sql: str) -> list[tuple]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_a_migration_is_applied_once_recorded_and_taken_in_by_the_books(tmp_path, monkeypatch):
    path = tmp_path / "w.duckdb"
    _older(path)
    found = _migrations(tmp_path, **{"0001_alerts_message": RENAME})
    monkeypatch.setattr(models, "migrations", lambda folder=None: found)
    warehouse = DuckDBWarehouse(path)
    plan = warehouse.upgrade_plan()
    assert plan is not None
    assert [m.name for m in plan.migrations] == ["0001_alerts_message"]
    assert plan.to_do() == [
        "migration 0001_alerts_message: Renames alerts.body to message (the name the payloads use)."
    ]
    seq_before = _rows(path, "SELECT max(seq) FROM bookkeeping.changes")[0][0] or 0
    warehouse.ensure_schema()
    assert _rows(path, "SELECT alert_id, message FROM alerts") == [("a1", "the text")]
    assert _rows(path, "SELECT migration, outcome, description FROM bookkeeping.migrations") == [
        (
            "0001_alerts_message",
            "applied",
            "Renames alerts.body to message (the name the payloads use).",
        )
    ]
    # the snapshot and incremental builds see the table changed whole
    assert _rows(
        path, f"SELECT table_name, day FROM bookkeeping.changes WHERE seq > {seq_before}"
    ) == [("alerts", None)]
    warehouse.ensure_schema()  # again: nothing more
    assert len(_rows(path, "SELECT * FROM bookkeeping.migrations")) == 1
    assert DuckDBWarehouse(path).upgrade_plan().to_do() == []  # type: ignore[union-attr]


def test_a_new_warehouse_records_every_migration_as_not_needed(tmp_path, monkeypatch):
    path = tmp_path / "w.duckdb"
    found = _migrations(tmp_path, **{"0001_alerts_message": RENAME})
    monkeypatch.setattr(models, "migrations", lambda folder=None: found)
    DuckDBWarehouse(path).ensure_schema()
    [(name, outcome, applied_at)] = _rows(
        path, "SELECT migration, outcome, applied_at FROM bookkeeping.migrations"
    )
    assert (name, outcome) == (
        "0001_alerts_message",
        "not needed: the warehouse was made with this version's tables",
    )
    assert isinstance(applied_at, datetime)


def test_a_failing_migration_leaves_nothing_half_done(tmp_path, monkeypatch):
    path = tmp_path / "w.duckdb"
    _older(path)
    found = _migrations(tmp_path, **{"0001_broken": BROKEN})
    monkeypatch.setattr(models, "migrations", lambda folder=None: found)
    with pytest.raises(duckdb.ConstraintException):  # alert_id is NOT NULL
        DuckDBWarehouse(path).ensure_schema()
    columns = {r[0] for r in _rows(path, "DESCRIBE alerts")}
    assert "body" in columns and "message" not in columns  # the rename was rolled back
    assert _rows(path, "SELECT count(*) FROM bookkeeping.migrations") == [(0,)]


def test_upgrade_and_doctor_say_what_an_older_warehouse_needs(tmp_path, capsys):
    path = tmp_path / "w.duckdb"
    DuckDBWarehouse(path).ensure_schema()
    config = write_config(tmp_path, "warehouse: {kind: duckdb, path: w.duckdb}\n")
    assert main(["upgrade", "--config", str(config)]) == 0
    assert "raw tables: this version's" in capsys.readouterr().out
    # An older DDL: alerts without deliveries, and jobs.gpus as an INTEGER.
    con = duckdb.connect(str(path))
    try:
        con.execute("ALTER TABLE alerts DROP COLUMN deliveries")
        kind = con.execute(
            "SELECT data_type FROM duckdb_columns() WHERE table_name = 'alerts' "
            "AND column_name = 'raised_at'"
        ).fetchone()[0]  # type: ignore[index]
        con.execute("ALTER TABLE alerts ALTER COLUMN raised_at SET DATA TYPE VARCHAR")
    finally:
        con.close()
    assert main(["upgrade", "--config", str(config)]) == 1
    out = capsys.readouterr().out
    assert "raw tables: add alerts.deliveries (this version's DDL has it)" in out
    assert (
        f"raw tables: alerts.raised_at is VARCHAR here, {kind} now: no migration changes it; "
        "see CHANGELOG.md before running"
    ) in out
    assert main(["doctor", "--config", str(config)]) == 1
    assert f"FAIL  schema: alerts.raised_at is VARCHAR here, {kind} now" in capsys.readouterr().out
    # --apply adds what can be added; the retyped column still needs a person: exit 1.
    assert main(["upgrade", "--config", str(config), "--apply"]) == 1
    out = capsys.readouterr().out
    assert "added: alerts.deliveries" in out
    assert "deliveries" in {r[0] for r in _rows(path, "DESCRIBE alerts")}


def test_upgrade_on_bigquery_says_what_it_cannot_compare(tmp_path, capsys):
    """A BigQuery warehouse's columns are not compared (nothing is asked of BigQuery), and a
    deployment whose dagster.yaml differs from this version's is told to copy it: exit 1."""
    config = write_config(
        tmp_path,
        'warehouse: {kind: bigquery, project: my-project, dataset: d, endpoint: "http://127.0.0.1:9"}\n',
    )
    assert main(["upgrade", "--config", str(config)]) == 0
    assert "raw tables: not compared here" in capsys.readouterr().out
    (tmp_path / "dagster_home").mkdir()
    (tmp_path / "dagster_home" / "dagster.yaml").write_text("telemetry: {enabled: true}\n")
    assert main(["upgrade", "--config", str(config)]) == 1
    assert "differs from this version's" in capsys.readouterr().out
