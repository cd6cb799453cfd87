"""The one place that picks the warehouse implementation from configuration."""

from __future__ import annotations

from pipelines.config import WarehouseConfig
from pipelines.warehouse.base import Warehouse


def open_warehouse(config: WarehouseConfig) -> Warehouse:
    if config.kind == "duckdb":
        from pipelines.warehouse.duckdb import DuckDBWarehouse

        return DuckDBWarehouse(config.path)
    raise NotImplementedError(
        f"warehouse.kind: {config.kind!r} is configured but not implemented yet (use duckdb)"
    )
