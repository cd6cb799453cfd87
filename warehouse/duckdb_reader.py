"""Read-only queries against the published DuckDB snapshot.

One read-only connection per snapshot version is kept (opening the file costs ~25 ms a
query at fleet scale); a superseded one is closed only when no query is still using it.
Each is made in a private in-memory DuckDB (in UTC) that ATTACHes the file, so a newly
swapped-in file is never confused with the old one DuckDB may still cache by path. Each query takes its own cursor, so threads (Streamlit's sessions) may share a reader.
The published name links to one of two files that take turns (warehouse/duckdb_snapshot.py):
a version is the file's inode with its modified and changed times, and the files this process
has open are counted (`open_here`) so that a publish here never writes into one of them.

Read-only for whatever SQL it is given (`flopledger sql` passes the user's): the snapshot is
attached READ_ONLY, then external access is switched off (no ATTACH, COPY, file functions such
as read_csv, extension installs) and the configuration locked, so no statement can switch it
back on. Only the snapshot is ever read: before the first one is published a query is
`NoWarehouse`, never a read of the live file, whose lock the pipeline needs.

A reader made with a memory limit sets it before the lock (DuckDB's limit is its database's,
and the lock keeps it: no statement can raise it); `stream` runs one query held to a time limit,
its rows batch by batch (warehouse/duckdb_bounded.py): `flopledger sql`'s bounds.
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa

import duckdb
from flopledger.models import INTERMEDIATE_SCHEMA
from flopledger.warehouse.base import NoWarehouse, Params, QueryError, Reader
from flopledger.warehouse.bounds import Bounds, Rows
from flopledger.warehouse.duckdb_bounded import streamed
from flopledger.warehouse.duckdb_lock import as_locked

# The files (device, inode) this process's readers have open: a publish in this process never
# writes into one (DuckDB's file lock keeps out only other processes; the published name is a
# hard link, so its check by path does not see them either: warehouse/duckdb_snapshot.py).
_OPEN: Counter[tuple[int, int]] = Counter()
_OPEN_LOCK = threading.Lock()


def _file(path: str | Path) -> tuple[int, int]:
    stat = os.stat(path)
    return (stat.st_dev, stat.st_ino)


def open_here(path: Path) -> bool:
    """Whether a reader in this process has the file at `path` open."""
    try:
        key = _file(path)
    except FileNotFoundError:
        return False
    with _OPEN_LOCK:
        return _OPEN[key] > 0


class _Attached:
    """One read-only connection to one snapshot version, and how many queries are using it;
    its memory capped at `memory_limit` where one is given (DuckDB's form: '4GB', '512MiB')."""

    def __init__(self, path: str, memory_limit: str | None = None) -> None:
        self.con = duckdb.connect(":memory:")
        self.con.execute("SET GLOBAL TimeZone = 'UTC'")  # GLOBAL: cursors share it
        try:
            self.file = self._attach(path)
            self.search_path = _search_path(self.con)
            if memory_limit is not None:
                self.con.execute("SET memory_limit = ?", [memory_limit])
            for statement in LOCK_DOWN:
                self.con.execute(statement)
        except (duckdb.Error, OSError):
            self.con.close()
            raise
        with _OPEN_LOCK:
            _OPEN[self.file] += 1
        self.users = 0

    def _attach(self, path: str) -> tuple[int, int]:
        """ATTACH the file `path` names, and which file that was: the name is looked at before
        and after, and attached again should a publish have swapped it in between."""
        while True:
            before = _file(path)
            try:
                self.con.execute("ATTACH '" + path.replace("'", "''") + "' AS snapshot (READ_ONLY)")
            except duckdb.IOException as exc:
                # the file being written was swapped out of the name just as it was opened
                if as_locked(exc, path) is not None and _file(path) != before:
                    continue
                raise
            if _file(path) == before:
                return before
            self.con.execute("DETACH snapshot")

    def close(self) -> None:
        self.con.close()
        with _OPEN_LOCK:
            _OPEN[self.file] -= 1


def _search_path(con: duckdb.DuckDBPyConnection) -> str:
    """The snapshot's schemas unqualified names look in: main, and the intermediate tables'
    schema where the snapshot has one (models name those tables unqualified)."""
    found = con.execute(
        "SELECT count(*) FROM duckdb_schemas() WHERE database_name = 'snapshot' AND schema_name = ?",
        [INTERMEDIATE_SCHEMA],
    ).fetchall()
    layers = ",snapshot." + INTERMEDIATE_SCHEMA if found[0][0] else ""
    return "snapshot.main" + layers


# After the ATTACH, in this order: the last one makes the others permanent for the connection.
LOCK_DOWN = (
    "SET autoinstall_known_extensions = false",
    "SET autoload_known_extensions = false",
    "SET enable_external_access = false",
    "SET lock_configuration = true",
)


class SnapshotReader(Reader):
    def __init__(self, snapshot: Path, live: Path, memory_limit: str | None = None) -> None:
        self.snapshot, self.live, self.memory_limit = snapshot, live, memory_limit
        self._lock = threading.Lock()
        self._attached: dict[str, _Attached] = {}  # version -> connection (old ones until idle)
        self._current = ""

    def _target(self) -> Path:
        if self.snapshot.exists():
            return self.snapshot
        if self.live.exists():
            raise NoWarehouse(
                f"{self.live}: no snapshot published yet (a `flopledger run` that passes its "
                "checks publishes one)"
            )
        raise NoWarehouse(f"{self.live}: no warehouse yet (run `flopledger run` first)")

    def version(self) -> str:
        try:
            target = self._target()
        except NoWarehouse:
            return ""
        stat = target.stat()
        # A publish writes into one of two files in turn (warehouse/duckdb_snapshot.py), so the
        # inode comes back every other publish: its change time (the link made to swap it in)
        # and modified time tell the versions apart.
        return f"{target}:{stat.st_ino}:{stat.st_mtime_ns}:{stat.st_ctime_ns}"

    def _acquire(self, version: str) -> _Attached:
        with self._lock:
            if version not in self._attached:
                self._attached[version] = _Attached(version.rsplit(":", 3)[0], self.memory_limit)
            self._current = version
            attached = self._attached[version]
            attached.users += 1
            self._close_idle_old()
            return attached

    def _release(self, attached: _Attached) -> None:
        with self._lock:
            attached.users -= 1
            self._close_idle_old()

    def _close_idle_old(self) -> None:
        """Close connections to superseded snapshots once no query is using them."""
        for version in [
            v for v, a in self._attached.items() if v != self._current and a.users == 0
        ]:
            self._attached.pop(version).close()

    @contextmanager
    def _using(self) -> Iterator[_Attached]:
        """The current snapshot's connection, counted as in use while the block runs."""
        version = self.version()
        if not version:
            self._target()  # raises NoWarehouse
        try:
            attached = self._acquire(version)
        except duckdb.Error as exc:
            raise _refusal(exc, self.snapshot) from exc
        try:
            yield attached
        finally:
            self._release(attached)

    def query(self, sql: str, params: Params = None) -> pa.Table:
        with self._using() as attached:
            return _run(attached, sql, params)

    @contextmanager
    def stream(self, sql: str, bounds: Bounds) -> Iterator[Rows]:
        """`sql` held to `bounds`' time limit and row count (its memory limit is the reader's,
        given when it was made): its rows while the block runs, batch by batch."""
        with (
            self._using() as attached,
            _cursor(attached) as cursor,
            streamed(cursor, sql, bounds) as rows,
        ):
            yield rows

    def close(self) -> None:
        with self._lock:
            for attached in self._attached.values():
                attached.close()
            self._attached.clear()


@contextmanager
def _cursor(attached: _Attached) -> Iterator[duckdb.DuckDBPyConnection]:
    """A cursor of the query's own (threads may share a reader) in the snapshot, its names
    looked up as the models name them; closed after the block."""
    cursor = attached.con.cursor()
    try:
        try:
            cursor.execute("USE snapshot")  # a cursor starts in the default catalog
            cursor.execute(f"SET search_path = '{attached.search_path}'")
        except duckdb.Error as exc:
            raise QueryError(str(exc).strip().splitlines()[0]) from exc
        yield cursor
    finally:
        cursor.close()


def _run(attached: _Attached, sql: str, params: Params) -> pa.Table:
    with _cursor(attached) as cursor:
        try:
            return cursor.sql(sql, params=params).to_arrow_table()
        except duckdb.Error as exc:
            raise QueryError(str(exc).strip().splitlines()[0]) from exc


def _refusal(exc: duckdb.Error, path: Path) -> Exception:
    """Why a file could not be attached: the writer's lock, or another error said in a line."""
    return as_locked(exc, path) or QueryError(str(exc).strip().splitlines()[0])
