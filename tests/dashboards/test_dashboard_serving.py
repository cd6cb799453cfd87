"""The pipeline writes while the dashboard serves: every page load succeeds."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import streamlit as st
from streamlit.testing.v1 import AppTest

from flopledger.settings import load_config
from flopledger.warehouse.duckdb import DuckDBWarehouse
from tests.dashboards.helpers import APP, PAGES

REPUBLISH = """
import sys
from flopledger.warehouse.duckdb import DuckDBWarehouse
w = DuckDBWarehouse(sys.argv[1])
for _ in range(15):
    w.publish_snapshot()
"""


def _load(name: str) -> AppTest:
    st.cache_data.clear()  # read the snapshot on every load, not a cached answer
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    if PAGES[name]:
        at.switch_page(PAGES[name])
        at.run()
    return at


def _serve_while(proc: subprocess.Popen, failures: list[str]) -> int:
    loads = 0
    while proc.poll() is None or loads < len(PAGES):
        name = list(PAGES)[loads % len(PAGES)]
        at = _load(name)
        if at.exception or at.error:
            failures.append(f"{name}: {[e.value for e in [*at.exception, *at.error]]}")
        loads += 1
    return loads


def test_every_page_load_succeeds_while_the_pipeline_writes(fleet_copy: Path, monkeypatch) -> None:
    monkeypatch.setenv("FLOPLEDGER_CONFIG", str(fleet_copy))
    warehouse = DuckDBWarehouse(load_config(fleet_copy).warehouse.path)
    first = warehouse.snapshot_path.stat().st_ino
    failures: list[str] = []
    # a full `flopledger run` in its own process (it holds the warehouse's write lock) ...
    run = subprocess.Popen(
        [sys.executable, "-m", "flopledger.cli.main", "run", "--config", str(fleet_copy)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    t0 = time.monotonic()
    loads = _serve_while(run, failures)
    assert run.wait() == 0, run.stderr.read() if run.stderr else ""
    assert warehouse.snapshot_path.stat().st_ino != first  # a new snapshot was swapped in
    # ... then snapshots swapped in back to back while pages load
    swaps = subprocess.Popen([sys.executable, "-c", REPUBLISH, str(warehouse.path)])
    loads += _serve_while(swaps, failures)
    assert swaps.wait() == 0
    assert not failures, failures
    assert loads >= 2 * len(PAGES), f"only {loads} loads in {time.monotonic() - t0:.0f} s"
