"""The warehouse: one interface, chosen in one place (`open_warehouse`).

The only package that imports `duckdb` (and, later, `google.cloud.bigquery`)."""

from flopledger.warehouse.base import (
    ColumnInfo,
    InPlace,
    NoWarehouse,
    Params,
    QueryError,
    Reader,
    TableInfo,
    Warehouse,
    WarehouseLocked,
)
from flopledger.warehouse.factory import open_warehouse

__all__ = [
    "ColumnInfo",
    "InPlace",
    "NoWarehouse",
    "Params",
    "QueryError",
    "Reader",
    "TableInfo",
    "Warehouse",
    "WarehouseLocked",
    "open_warehouse",
]
