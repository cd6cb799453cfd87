"""The one Dagster instance of a flopledger deployment: `flopledger run`, `flopledger ui`
and `dagster-daemon` share it, so the UI shows every run's materialisations and checks.

It lives in the config's `dagster_home` folder (default: beside the warehouse), with
`dagster.yaml` beside this module (the run queue that lets one writer at a time at the
warehouse; the wheel ships it) copied in the first time. Set DAGSTER_HOME to the same folder
for Dagster's own commands."""

from __future__ import annotations

import shutil
from pathlib import Path

import dagster as dg

from flopledger.settings import Config

INSTANCE_TEMPLATE = Path(__file__).with_name("dagster.yaml")


def prepare_dagster_home(config: Config) -> Path:
    """The config's dagster_home, created with INSTANCE_TEMPLATE if it has no dagster.yaml.

    load_config always sets dagster_home (its default, beside the warehouse, is decided there)."""
    if config.dagster_home is None:
        raise ValueError("config.dagster_home is unset: read the config with settings.load_config")
    home = Path(config.dagster_home)
    home.mkdir(parents=True, exist_ok=True)
    target = home / "dagster.yaml"
    if not target.exists():
        shutil.copyfile(INSTANCE_TEMPLATE, target)
    return home


def flopledger_instance(config: Config) -> dg.DagsterInstance:
    return dg.DagsterInstance.from_config(str(prepare_dagster_home(config)))
