"""The one Dagster resource: flopledger's configuration and its warehouse."""

from __future__ import annotations

from datetime import UTC, datetime

import dagster as dg

from pipelines.config import Config, load_config
from pipelines.warehouse import Warehouse, open_warehouse

_SCHEMA_READY: set[str] = set()


class Flopledger(dg.ConfigurableResource):
    """Where the config file is; everything else is read from it."""

    config_path: str

    def config(self) -> Config:
        return load_config(self.config_path)

    def warehouse(self) -> Warehouse:
        """The configured warehouse, its raw tables created (once per process and warehouse)."""
        config = self.config().warehouse
        warehouse = open_warehouse(config)
        key = config.model_dump_json()
        if key not in _SCHEMA_READY or not warehouse.exists():
            warehouse.ensure_schema()
            _SCHEMA_READY.add(key)
        return warehouse

    def now(self) -> datetime:
        """The run's clock (UTC, naive). The only call to the wall clock in the pipeline."""
        return datetime.now(UTC).replace(tzinfo=None, microsecond=0)
