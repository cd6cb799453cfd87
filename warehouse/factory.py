"""The one place that picks the warehouse implementation from configuration."""

from __future__ import annotations

from flopledger.settings import WarehouseConfig
from flopledger.warehouse.base import Warehouse


def open_warehouse(config: WarehouseConfig) -> Warehouse:
    if config.kind == "bigquery":
        from flopledger.warehouse.bigquery import BigQueryWarehouse

        assert config.project is not None and config.dataset is not None  # settings checks
        return BigQueryWarehouse(
            config.project,
            config.dataset,
            location=config.location,
            endpoint=config.endpoint,
            max_bytes_billed=config.max_bytes_billed,
        )
    from flopledger.warehouse.duckdb import DuckDBWarehouse

    return DuckDBWarehouse(config.path)
