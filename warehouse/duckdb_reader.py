"""Read-only queries against the published DuckDB snapshot.

One read-only connection per snapshot version is kept (opening the file costs ~25 ms a
query at fleet scale); it is made in a private in-memory DuckDB that ATTACHes the file,
so a newly swapped-in file is never confused with the old one DuckDB may still cache by
path. Each query takes its own cursor, so threads (Streamlit's sessions) may share a reader.
Before any snapshot is published, the live file is read (read-only).
"""

from __future__ import annotations

import threading
from pathlib import Path

import duckdb
import pyarrow as pa

from warehouse.base import NoWarehouse, Params, QueryError, Reader


class SnapshotReader(Reader):
    def __init__(self, snapshot: Path, live: Path) -> None:
        self.snapshot, self.live = snapshot, live
        self._lock = threading.Lock()
        self._con: duckdb.DuckDBPyConnection | None = None
        self._con_version = ""

    def _target(self) -> Path:
        for path in (self.snapshot, self.live):
            if path.exists():
                return path
        raise NoWarehouse(f"{self.live}: no warehouse yet (run `flopledger run` first)")

    def version(self) -> str:
        try:
            target = self._target()
        except NoWarehouse:
            return ""
        stat = target.stat()
        return f"{target}:{stat.st_ino}:{stat.st_mtime_ns}"

    def _connection(self, version: str) -> duckdb.DuckDBPyConnection:
        with self._lock:
            if self._con is None or self._con_version != version:
                if self._con is not None:
                    self._con.close()
                con = duckdb.connect(":memory:")
                con.execute("SET TimeZone = 'UTC'")
                path = version.rsplit(":", 2)[0]
                con.execute("ATTACH '" + path.replace("'", "''") + "' AS snapshot (READ_ONLY)")
                self._con, self._con_version = con, version
            return self._con

    def query(self, sql: str, params: Params = None) -> pa.Table:
        version = self.version()
        if not version:
            self._target()  # raises NoWarehouse
        try:
            cursor = self._connection(version).cursor()
            try:
                cursor.execute("USE snapshot")  # a cursor starts in the default catalog
                return cursor.sql(sql, params=params).to_arrow_table()
            finally:
                cursor.close()
        except duckdb.Error as exc:
            raise QueryError(str(exc).strip().splitlines()[0]) from exc

    def close(self) -> None:
        with self._lock:
            if self._con is not None:
                self._con.close()
                self._con = None
