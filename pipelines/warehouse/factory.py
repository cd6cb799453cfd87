"""The one place that picks the warehouse implementation from configuration."""

from __future__ import annotations

from pipelines.config import ConfigError, WarehouseConfig
from pipelines.warehouse.base import Warehouse


def open_warehouse(config: WarehouseConfig) -> Warehouse:
    if config.kind == "duckdb":
        from pipelines.warehouse.duckdb import DuckDBWarehouse

        return DuckDBWarehouse(config.path)
    raise ConfigError(f"warehouse.kind: {config.kind!r} is not implemented yet (use duckdb)")
