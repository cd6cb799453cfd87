"""DuckDB over Arrow tables in memory: the readers' columnar engine (issue 15).

Readers in collectors/ may not import DuckDB (the door is warehouse/); they are handed an
`ArrowSQL` and run their own statements (SQL text, which they keep beside them) on Arrow
tables they register. Nothing here opens the warehouse file: each session is its own
in-memory database in UTC.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

import duckdb


class ArrowSQL:
    """One in-memory DuckDB session; `run` a statement over registered tables."""

    def __init__(self, threads: int | None = None) -> None:
        self._con = duckdb.connect(":memory:")
        self._con.execute("SET TimeZone = 'UTC'")
        self._con.execute("SET enable_progress_bar = false")  # the run prints its own progress
        if threads is not None:
            self._con.execute(f"SET threads = {int(threads)}")

    def register(self, name: str, table: pa.Table) -> None:
        self._con.register(name, table)

    def define(self, sql: str) -> None:
        """Run statements of definitions (macros) in this session."""
        self._con.execute(sql)

    def run(self, sql: str, params: dict[str, Any]) -> pa.Table:
        """One statement's result, its `$name` parameters bound from `params`."""
        return self._con.sql(sql, params=params).to_arrow_table()

    def close(self) -> None:
        self._con.close()

    def __enter__(self) -> ArrowSQL:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
