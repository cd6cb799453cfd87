"""The snapshot reader under a publish: a query still running on the old snapshot finishes,
while the next query reads the new one."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pyarrow as pa
import pytest

from flopledger.warehouse.base import NoWarehouse
from flopledger.warehouse.duckdb import DuckDBWarehouse
from tests.conftest import HANG_S


def _publish(wh: DuckDBWarehouse, value: int) -> None:
    wh.execute("CREATE OR REPLACE TABLE t AS SELECT ? AS v", [value])
    wh.publish_snapshot()


def test_a_query_on_the_old_snapshot_survives_a_publish(tmp_path: Path) -> None:
    wh = DuckDBWarehouse(tmp_path / "w.duckdb")
    _publish(wh, 1)
    reader = wh.reader()
    assert reader.query("SELECT v FROM t").to_pylist() == [{"v": 1}]
    old_version = reader.version()

    results: dict[str, pa.Table | Exception] = {}
    started = threading.Event()

    def slow_old_query() -> None:
        started.set()
        try:  # ~1 s of work on the snapshot that is about to be replaced
            results["old"] = reader.query(
                "SELECT (SELECT v FROM t) AS v, count(*) AS n FROM range(400000000) WHERE range % 7 = 3"
            )
        except Exception as exc:  # noqa: BLE001 - the assertion below names it
            results["old"] = exc

    worker = threading.Thread(target=slow_old_query)
    worker.start()
    started.wait()
    _publish(wh, 2)
    assert reader.version() != old_version
    assert reader.query("SELECT v FROM t").to_pylist() == [{"v": 2}]  # the new snapshot
    worker.join(timeout=HANG_S)
    old = results["old"]
    assert not isinstance(old, Exception), old
    # 400,000,000 numbers, those = 3 (mod 7): 0..399,999,999 holds 57,142,857 full sevens
    # (to 399,999,998) plus 399,999,999 (= 1 mod 7): 57,142,857 hits; v from the old snapshot.
    assert old.to_pylist() == [{"v": 1, "n": 57_142_857}]
    reader.close()


def test_before_the_first_snapshot_a_reader_never_keeps_the_writer_out(tmp_path: Path) -> None:
    wh = DuckDBWarehouse(tmp_path / "w.duckdb")
    wh.execute("CREATE TABLE t AS SELECT 1 AS v")
    reader = wh.reader()  # a dashboard opened before any run published
    with pytest.raises(NoWarehouse, match="no snapshot published yet"):
        reader.query("SELECT v FROM t")  # never the live file: the writer needs its lock
    writer = subprocess.run(
        [sys.executable, "-c", "import duckdb, sys; duckdb.connect(sys.argv[1]).execute('CREATE TABLE u (x INT)')",
         str(wh.path)],
        capture_output=True, text=True, timeout=HANG_S,
    )  # fmt: skip
    assert writer.returncode == 0, writer.stderr
    reader.close()


def test_reader_queries_run_in_utc_whatever_the_machine_says(tmp_path: Path) -> None:
    wh = DuckDBWarehouse(tmp_path / "w.duckdb")
    _publish(wh, 1)
    code = (
        "import sys; from flopledger.warehouse.duckdb import DuckDBWarehouse\n"
        "r = DuckDBWarehouse(sys.argv[1]).reader()\n"
        "print(r.query(\"SELECT current_setting('TimeZone') AS tz, "
        "CAST(TIMESTAMPTZ '2026-10-01 02:00:00+00' AS DATE) AS d\").to_pylist())\n"
    )
    env = {**os.environ, "TZ": "America/New_York"}
    out = subprocess.run(
        [sys.executable, "-c", code, str(wh.path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_S,
    )
    assert out.returncode == 0, out.stderr
    # 02:00 UTC on 1 October is still 30 September in New York: UTC keeps it on the 1st.
    assert out.stdout.strip() == "[{'tz': 'UTC', 'd': datetime.date(2026, 10, 1)}]"
