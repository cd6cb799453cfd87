"""`flopledger ui`: Dagster's UI and daemon (`dagster dev`) over this config's instance.

The instance is the config's `dagster_home` (default: beside the warehouse), the same one
`flopledger run` records into, so the UI shows every run's materialisations and checks and
the daemon runs the schedules. The child gets DAGSTER_HOME and FLOPLEDGER_CONFIG, and loads
the installed module that the repository's `workspace.yaml` names (CODE_LOCATION), so it needs
no checkout: it runs in the instance's folder.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from flopledger.settings import load_config

# What Dagster loads: the same module and attribute as the repository's workspace.yaml.
CODE_LOCATION = ("-m", "flopledger.pipelines.definitions", "-a", "defs")


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("ui", help="Dagster's UI and daemon over this config's instance")
    parser.add_argument("--config", default="flopledger.yaml", help="path to flopledger.yaml")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=3000, help="port (default 3000)")
    parser.set_defaults(func=ui)


def dagster_dev(config_path: Path, host: str, port: int) -> tuple[list[str], dict[str, str]]:
    """The child's argv and environment: `dagster dev` on the config's instance."""
    from flopledger.pipelines.instance import prepare_dagster_home

    home = prepare_dagster_home(load_config(config_path, warn=False))
    argv = [sys.executable, "-m", "dagster", "dev", *CODE_LOCATION, "-h", host, "-p", str(port)]
    env = {**os.environ, "DAGSTER_HOME": str(home), "FLOPLEDGER_CONFIG": str(config_path)}
    return argv, env


def ui(args: argparse.Namespace) -> int:
    config_path = Path(args.config).resolve()
    argv, env = dagster_dev(config_path, args.host, args.port)
    print(
        f"Dagster UI on http://{args.host}:{args.port} (instance {env['DAGSTER_HOME']})",
        file=sys.stderr,
    )
    try:
        return subprocess.call(argv, env=env, cwd=env["DAGSTER_HOME"])
    except KeyboardInterrupt:
        return 0
