"""The warehouse: one interface, chosen in one place (`open_warehouse`): DuckDB (a file, the
embedded default) or BigQuery (a dataset).

The only package that imports `duckdb`; BigQuery is reached through clients/bigquery.py."""

from flopledger.warehouse.base import (
    ColumnInfo,
    InPlace,
    NoWarehouse,
    Params,
    Published,
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
    "Published",
    "QueryError",
    "Reader",
    "TableInfo",
    "Warehouse",
    "WarehouseLocked",
    "open_warehouse",
]
