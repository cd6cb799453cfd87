"""The pipeline writes while the dashboard serves: every page load succeeds.

Pages load one after another from when the writer is started until it has exited (and for
at least one round of the pages), so its writes land among the loads however fast either
side runs: a full `flopledger run`, then 15 snapshot swaps back to back."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import streamlit as st
from streamlit.testing.v1 import AppTest

from flopledger.settings import load_config
from flopledger.warehouse.duckdb import DuckDBWarehouse
from tests.conftest import HANG_S
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
    at = AppTest.from_file(str(APP), default_timeout=HANG_S)
    at.run()
    if PAGES[name]:
        at.switch_page(PAGES[name])
        at.run()
    return at


def _serve_while(proc: subprocess.Popen, failures: list[str]) -> None:
    """Page loads, the pages in turn, until `proc` has exited and every page has loaded."""
    loads = 0
    while proc.poll() is None or loads < len(PAGES):
        name = list(PAGES)[loads % len(PAGES)]
        at = _load(name)
        if at.exception or at.error:
            failures.append(f"{name}: {[e.value for e in [*at.exception, *at.error]]}")
        loads += 1


def test_every_page_load_succeeds_while_the_pipeline_writes(fleet_copy: Path, monkeypatch) -> None:
    monkeypatch.setenv("FLOPLEDGER_CONFIG", str(fleet_copy))
    warehouse = DuckDBWarehouse(load_config(fleet_copy).warehouse.path)
    # Each snapshot checked against is held open: a file's inode number is reused once the
    # file is gone (the swaps free one and allocate the next), never while it is open.
    held = [warehouse.snapshot_path.open("rb")]
    first = os.fstat(held[0].fileno()).st_ino
    failures: list[str] = []
    # a full `flopledger run` in its own process (it holds the warehouse's write lock) ...
    run = subprocess.Popen(
        [sys.executable, "-m", "flopledger.cli.main", "run", "--config", str(fleet_copy)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    _serve_while(run, failures)
    assert run.wait() == 0, run.stderr.read() if run.stderr else ""
    held.append(warehouse.snapshot_path.open("rb"))
    swapped_in = os.fstat(held[1].fileno()).st_ino
    assert swapped_in != first  # a new snapshot was swapped in
    # ... then snapshots swapped in back to back while pages load
    swaps = subprocess.Popen([sys.executable, "-c", REPUBLISH, str(warehouse.path)])
    _serve_while(swaps, failures)
    assert swaps.wait() == 0
    assert warehouse.snapshot_path.stat().st_ino != swapped_in
    for file in held:
        file.close()
    assert not failures, failures
