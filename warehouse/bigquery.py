"""The warehouse in BigQuery: one dataset holds every raw table and mart, unqualified names
resolve to it (the jobs' default dataset), and the models are the DuckDB ones transpiled at
run time (warehouse/transpile.py). Jobs go through the one BigQuery door, clients/bigquery.py.

Raw tables are loaded as Parquet load jobs, partitioned by UTC day and clustered by the keys
the marts join on; a day is replaced by truncating exactly its partition. BigQuery needs no
snapshot: a reader queries the dataset, and each table changes atomically (one job)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from functools import cached_property
from typing import Any

import pyarrow as pa

from clients import bigquery as bq
from warehouse.base import Params, Reader, TableInfo, Warehouse


class BigQueryWarehouse(Warehouse):
    """`project.dataset` in BigQuery; `endpoint` a local emulator instead of Google."""

    def __init__(
        self,
        project: str,
        dataset: str,
        location: str | None = None,
        endpoint: str | None = None,
        max_bytes_billed: int = 100 * 2**30,
        credentials: Any = None,
    ) -> None:
        self.project, self.dataset, self.location = project, dataset, location
        self.endpoint, self.max_bytes_billed = endpoint, max_bytes_billed
        self._credentials = credentials

    @property
    def dataset_id(self) -> str:
        """`project.dataset`: the jobs' default dataset."""
        return f"{self.project}.{self.dataset}"

    def table_id(self, table: str) -> str:
        return f"{self.dataset_id}.{table}"

    @cached_property
    def client(self) -> bq.Client:
        """Made on first use, never at construction (a workspace loads without a warehouse)."""
        return bq.make_client(self.project, self.endpoint, self._credentials, self.location)

    def exists(self) -> bool:
        raise NotImplementedError

    def ensure_schema(self) -> None:
        raise NotImplementedError

    def query(self, sql: str, params: Params = None) -> pa.Table:
        raise NotImplementedError

    def execute(self, sql: str, params: Params = None) -> None:
        raise NotImplementedError

    def replace_days(
        self, table: str, day_column: str, days: Sequence[date], data: pa.Table
    ) -> int:
        raise NotImplementedError

    def replace_all(self, table: str, data: pa.Table) -> int:
        raise NotImplementedError

    def insert_new(self, table: str, data: pa.Table, key: str) -> int:
        raise NotImplementedError

    def build_mart(self, name: str) -> int:
        raise NotImplementedError

    def read_query(self, sql: str, params: Params = None) -> pa.Table:
        return self.query(sql, params)

    def reader(self) -> Reader:
        raise NotImplementedError  # warehouse/bigquery_reader.py (issue 17, read side)

    def publish_snapshot(self) -> str:
        """Nothing to copy: BigQuery readers query the dataset itself, and every table is
        replaced by one atomic job, so a reader never sees half a table."""
        return self.dataset_id

    def catalogue(self) -> list[TableInfo]:
        raise NotImplementedError
