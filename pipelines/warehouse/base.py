"""What every warehouse implementation offers. Nothing outside `pipelines/warehouse/`
asks which implementation is active."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

Params = Sequence[Any] | None


class Warehouse(ABC):
    """Tables in one schema; raw tables from `models/raw`, marts from `models/marts`."""

    @abstractmethod
    def exists(self) -> bool:
        """Whether the warehouse has been created."""

    @abstractmethod
    def ensure_schema(self) -> None:
        """Create every raw table that is missing and (re)apply table and column comments."""

    @abstractmethod
    def query(self, sql: str, params: Params = None) -> pa.Table:
        """Run a read query with bound parameters; the result as Arrow."""

    @abstractmethod
    def execute(self, sql: str, params: Params = None) -> None:
        """Run one statement with bound parameters."""

    @abstractmethod
    def replace_where(self, table: str, where: str, params: Params, data: pa.Table) -> int:
        """In one transaction: delete the rows matching `where`, insert `data`. Returns rows inserted.

        This is how a partition is rebuilt: rerunning it changes nothing."""

    @abstractmethod
    def insert_new(self, table: str, data: pa.Table, key: str) -> int:
        """Insert the rows of `data` whose `key` is not in `table` yet. Returns rows inserted."""

    @abstractmethod
    def build_mart(self, name: str) -> int:
        """(Re)build one mart from its SQL file, with its comments. Returns its row count."""

    @abstractmethod
    def read_query(self, sql: str, params: Params = None) -> pa.Table:
        """A read-only query against the latest published snapshot (the live tables if none yet)."""

    @abstractmethod
    def publish_snapshot(self) -> str:
        """Publish a consistent read-only copy for readers (dashboards, `flopledger sql`)."""
