"""The warehouse: one interface, chosen in one place (`open_warehouse`)."""

from pipelines.warehouse.base import Warehouse
from pipelines.warehouse.factory import open_warehouse

__all__ = ["Warehouse", "open_warehouse"]
