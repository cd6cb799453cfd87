"""The one Dagster resource: flopledger's configuration and its warehouse."""

from __future__ import annotations

from datetime import UTC, datetime

import dagster as dg
from pydantic import PrivateAttr

from flopledger.clients.network import use_deadlines
from flopledger.settings import Config, load_config
from flopledger.warehouse import Warehouse, open_warehouse


class Flopledger(dg.ConfigurableResource):
    """Where the config file is; everything else is read from it."""

    config_path: str
    _schema_ready: bool = PrivateAttr(default=False)

    def config(self) -> Config:
        """The config file, read afresh (quietly: `flopledger run` has said what is empty); its
        `network:` deadlines become this process's (clients/network.py)."""
        config = load_config(self.config_path, warn=False)
        use_deadlines(config.network.deadline_s, config.network.webhook_deadline_s)
        return config

    def warehouse(self) -> Warehouse:
        """The configured warehouse, its raw tables created (once per resource instance)."""
        warehouse = open_warehouse(self.config().warehouse)
        if not self._schema_ready or not warehouse.exists():
            warehouse.ensure_schema()
            self._schema_ready = True
        return warehouse

    def now(self) -> datetime:
        """The run's clock (UTC, naive). The only call to the wall clock in the pipeline."""
        return datetime.now(UTC).replace(tzinfo=None, microsecond=0)
