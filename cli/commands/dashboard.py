"""`flopledger dashboard`: serve the Streamlit dashboards over the latest published snapshot.

Streamlit runs as a child process (`python -m streamlit run .../flopledger/dashboards/app.py`,
the app where the package is installed, a checkout's or the wheel's), bound to
127.0.0.1 unless `--host` says otherwise. The config path reaches the app in
$FLOPLEDGER_CONFIG (and after `--`); the child runs in the config file's folder, so a
`.streamlit/secrets.toml` there (sign-in) is picked up.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from pathlib import Path

import flopledger
from flopledger.settings import load_config

APP = Path(flopledger.__file__).parent / "dashboards" / "app.py"  # cli/ never imports dashboards/


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("dashboard", help="serve the finance dashboards (Streamlit)")
    parser.add_argument("--config", default="flopledger.yaml", help="path to flopledger.yaml")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8501, help="port (default 8501)")
    parser.set_defaults(func=dashboard)


def streamlit_command(config_path: Path, host: str, port: int) -> list[str]:
    """The child process's argv."""
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(APP),
        "--server.address",
        host,
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--server.runOnSave",
        "false",
        "--server.fileWatcherType",
        "none",
        "--browser.gatherUsageStats",
        "false",
        "--client.toolbarMode",
        "viewer",
        "--",
        "--config",
        str(config_path),
    ]


def dashboard(args: argparse.Namespace) -> int:
    config_path = Path(args.config).resolve()
    load_config(config_path)  # refuse a bad config here, in one line, not inside Streamlit
    env = {**os.environ, "FLOPLEDGER_CONFIG": str(config_path)}
    print(
        f"flopledger dashboard: http://{args.host}:{args.port} (config {config_path})",
        file=sys.stderr,
    )
    child = subprocess.Popen(
        streamlit_command(config_path, args.host, args.port), env=env, cwd=config_path.parent
    )
    signal.signal(signal.SIGTERM, lambda *_: child.terminate())  # never leave Streamlit behind
    try:
        return child.wait()
    except KeyboardInterrupt:
        child.terminate()
        child.wait(timeout=10)
        return 130
