"""flopledger's configuration: `flopledger.yaml`, read and validated (settings/config_file.py)."""

from flopledger.settings.config_file import (
    AllocationConfig,
    BigQueryExportConfig,
    CloudMonitoringConfig,
    Config,
    ConfigError,
    DashboardConfig,
    GcpBillingConfig,
    SchedulesConfig,
    SourceConfig,
    SourcesConfig,
    WarehouseConfig,
    load_config,
)

__all__ = [
    "AllocationConfig",
    "BigQueryExportConfig",
    "CloudMonitoringConfig",
    "Config",
    "ConfigError",
    "DashboardConfig",
    "GcpBillingConfig",
    "SchedulesConfig",
    "SourceConfig",
    "SourcesConfig",
    "WarehouseConfig",
    "load_config",
]
