"""A warehouse another process is writing: one clear error naming the file and the holder."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from flopledger.warehouse import WarehouseLocked
from flopledger.warehouse.duckdb import DuckDBWarehouse
from tests.conftest import HANG_S

# Holds the file's write lock until the test kills it (or its stdin closes), however long
# what the test runs beside it takes.
HOLD = "import duckdb, sys; c = duckdb.connect(sys.argv[1]); print('held', flush=True); sys.stdin.read()"


def _holder(path: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_a_locked_warehouse_names_its_holder(tmp_path: Path) -> None:
    wh = DuckDBWarehouse(tmp_path / "w.duckdb")
    wh.ensure_schema()
    holder = _holder(wh.path)
    try:
        with pytest.raises(WarehouseLocked) as locked:
            wh.query("SELECT 1")
    finally:
        holder.kill()
        holder.wait()
    assert locked.value.pid == holder.pid
    assert str(locked.value).startswith(f"{wh.path} is locked by process {holder.pid}:")


def test_flopledger_run_on_a_locked_warehouse_says_one_line_and_exits_2(tmp_path: Path) -> None:
    (tmp_path / "flopledger.yaml").write_text("warehouse: {path: w.duckdb}\n")
    DuckDBWarehouse(tmp_path / "w.duckdb").ensure_schema()
    holder = _holder(tmp_path / "w.duckdb")
    try:
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "flopledger.cli.main",
                "run",
                "--config",
                str(tmp_path / "flopledger.yaml"),
            ],
            capture_output=True,
            text=True,
            timeout=HANG_S,
        )
    finally:
        holder.kill()
        holder.wait()
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        f"flopledger: {tmp_path / 'w.duckdb'} is locked by process {holder.pid}: one writer at a "
        "time; wait for it to finish (or stop it), then run again"
    ]
