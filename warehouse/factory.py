"""The one place that picks the warehouse implementation from configuration."""

from __future__ import annotations

from settings import WarehouseConfig
from warehouse.base import Warehouse


def open_warehouse(config: WarehouseConfig) -> Warehouse:
    if config.kind == "bigquery":
        from warehouse.bigquery import BigQueryWarehouse

        assert config.project is not None and config.dataset is not None  # settings checks
        return BigQueryWarehouse(
            config.project,
            config.dataset,
            location=config.location,
            endpoint=config.endpoint,
            max_bytes_billed=config.max_bytes_billed,
        )
    from warehouse.duckdb import DuckDBWarehouse

    return DuckDBWarehouse(config.path)
