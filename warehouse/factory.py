"""The one place that picks the warehouse implementation from configuration."""

from __future__ import annotations

from settings import ConfigError, WarehouseConfig
from warehouse.base import Warehouse


def open_warehouse(config: WarehouseConfig) -> Warehouse:
    if config.kind == "duckdb":
        from warehouse.duckdb import DuckDBWarehouse

        return DuckDBWarehouse(config.path)
    raise ConfigError(f"warehouse.kind: {config.kind!r} is not implemented yet (use duckdb)")
