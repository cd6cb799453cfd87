"""The single Dagster entry point; `workspace.yaml` loads this module.

The config file is `$FLOPLEDGER_CONFIG`, else `./flopledger.yaml`, else the example in
`examples/`.
"""

from pipelines.build import build_definitions, default_config_path

defs = build_definitions(default_config_path())
