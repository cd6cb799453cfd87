"""`flopledger sql` cannot write, read files or take the pipeline's lock; a hostile `limits:`
block is one clear line; a good one moves the bounds."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from flopledger.cli.main import main
from flopledger.collectors.gcp_billing.read import read_billing_files
from flopledger.ingest.loading import run_limits
from flopledger.settings import ConfigError, load_config
from flopledger.warehouse.duckdb import DuckDBWarehouse
from tests.conftest import billing_row, write_config, write_ndjson


@pytest.fixture
def published(tmp_path: Path) -> Path:
    """A warehouse with one table, published as a snapshot; returns the config path."""
    wh = DuckDBWarehouse(tmp_path / "w.duckdb")
    wh.execute("CREATE TABLE jobs AS SELECT 'r1' AS run_id")
    wh.publish_snapshot()
    return write_config(tmp_path, "warehouse: {kind: duckdb, path: w.duckdb}\n")


def _sql(config: Path, query: str, capsys) -> tuple[int, str, str]:
    code = main(["sql", "--config", str(config), "--format", "csv", query])
    out, err = capsys.readouterr()
    return code, out, err


REFUSED = [
    ("COPY to a file", "COPY jobs TO '{tmp}/x.csv'", "disabled"),
    ("read any file", "SELECT * FROM read_csv('/etc/passwd')", "disabled"),
    ("glob the disk", "SELECT * FROM glob('/etc/*')", "disabled"),
    ("ATTACH the live warehouse read-write", "ATTACH '{tmp}/w.duckdb' AS w (READ_WRITE)", ""),
    ("DROP a table", "DROP TABLE jobs", "read-only"),
    ("INSERT", "INSERT INTO jobs VALUES ('r2')", "read-only"),
    ("switch external access back on", "SET enable_external_access = true", "configuration"),
    ("install an extension", "INSTALL httpfs", ""),
    ("load an extension", "LOAD httpfs", ""),
    ("not SQL", "SELEC 1", "syntax"),
]


@pytest.mark.parametrize("name,query,words", REFUSED, ids=[r[0] for r in REFUSED])
def test_sql_refuses_in_one_line_and_writes_nothing(
    published, tmp_path, capsys, name, query, words
):
    code, out, err = _sql(published, query.format(tmp=tmp_path), capsys)
    assert code != 0 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("flopledger sql: ")
    assert words.lower() in err.lower()
    assert not (tmp_path / "x.csv").exists()
    live = duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True)
    assert live.execute("SELECT count(*) FROM jobs").fetchone() == (1,)  # still there, unchanged
    live.close()


def test_sql_still_answers_a_select(published, capsys):
    code, out, _ = _sql(published, "SELECT run_id FROM jobs", capsys)
    assert code == 0 and out.splitlines() == ["run_id", "r1"]


def test_sql_before_the_first_snapshot_is_a_clear_error_and_takes_no_lock(tmp_path, capsys):
    wh = DuckDBWarehouse(tmp_path / "w.duckdb")
    wh.execute("CREATE TABLE jobs AS SELECT 1 AS v")
    config = write_config(tmp_path, "warehouse: {kind: duckdb, path: w.duckdb}\n")
    code, out, err = _sql(config, "SELECT * FROM jobs", capsys)
    assert code == 1 and out == ""
    assert err.strip() == f"flopledger sql: {tmp_path / 'w.duckdb'}: no snapshot published yet " \
        "(a `flopledger run` that passes its checks publishes one)"  # fmt: skip
    wh.execute("CREATE TABLE after AS SELECT 1 AS v")  # the writer was never kept out


BAD_LIMITS = [
    ("negative money bound", "max_money: -1", "limits.max_money"),
    ("a bound that could overflow a sum", "max_money: 1e30", "limits.max_money"),
    ("an unknown key", "max_rows: 5", "limits.max_rows"),
    ("future_days not a number", "future_days: soon", "limits.future_days"),
    ("earliest not a date", "earliest: yesterday", "limits.earliest"),
    ("a zero-day row span", "max_row_span_days: 0", "limits.max_row_span_days"),
    ("no nodes allowed", "max_nodes_per_job: 0", "limits.max_nodes_per_job"),
]


@pytest.mark.parametrize("name,line,key", BAD_LIMITS, ids=[b[0] for b in BAD_LIMITS])
def test_a_bad_limits_block_is_one_clear_line(tmp_path, name, line, key):
    path = write_config(tmp_path, f"limits:\n  {line}\n")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert key in str(err.value) and "\n" not in str(err.value)


def test_limits_from_the_config_move_the_bounds(tmp_path):
    path = write_config(
        tmp_path,
        "limits: {max_money: 100, earliest: 2026-01-01, future_days: 1, max_nodes_per_job: 2}\n",
    )
    limits = run_limits(load_config(path), datetime(2026, 10, 5, 12))
    assert limits.max_money == Decimal(100) and limits.max_nodes_per_job == 2
    assert limits.earliest == datetime(2026, 1, 1) and limits.latest == datetime(2026, 10, 6, 12)
    rows = [billing_row(cost=99), billing_row(cost=150), billing_row(hour="2026-10-07 00")]
    table, stats = read_billing_files([write_ndjson(tmp_path / "x.ndjson", rows)], limits=limits)
    # 99 <= 100 loads; 150 > 100 is refused; 10-07 is past 10-05 12:00 + 1 day.
    assert table["cost"].to_pylist() == [Decimal("99.000000000")]
    assert [q.reason.split(":")[0] for q in stats.quarantined] == ["cost", "usage_start_time"]
    assert pa.types.is_decimal(table.schema.field("cost").type)
