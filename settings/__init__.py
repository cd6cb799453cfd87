"""flopledger's configuration: `flopledger.yaml`, read and validated (settings/config_file.py)."""

from settings.config_file import (
    AllocationConfig,
    CloudMonitoringConfig,
    Config,
    ConfigError,
    DashboardConfig,
    SchedulesConfig,
    SourceConfig,
    SourcesConfig,
    WarehouseConfig,
    load_config,
)

__all__ = [
    "AllocationConfig",
    "CloudMonitoringConfig",
    "Config",
    "ConfigError",
    "DashboardConfig",
    "SchedulesConfig",
    "SourceConfig",
    "SourcesConfig",
    "WarehouseConfig",
    "load_config",
]
