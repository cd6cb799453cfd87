"""`flopledger agent --simulate` as a real process, stopped by SIGTERM and by SIGKILL.

To keep wall time small the agent samples every 0.05 s with a test-only one-second
"minute" (`--minute-seconds 1`, hidden from --help): each "minute" has ~20 readings and
the open spool file is rewritten every second, so a kill often lands mid-write.
"""

from __future__ import annotations

import math
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from flopledger.cli.main import main
from flopledger.collectors.nvml.read import read_spool

FLOPLEDGER = Path(sys.executable).parent / "flopledger"
GPUS = 8


def start_agent(spool: Path) -> subprocess.Popen[bytes]:
    command = [
        str(FLOPLEDGER),
        "agent",
        "--simulate",
        "training",
        "--gpus",
        str(GPUS),
        "--spool",
        str(spool),
        "--interval",
        "0.05s",
        "--minute-seconds",
        "1",
    ]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def wait_for_rows(spool: Path, minutes: int, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        table, _ = read_spool([spool])
        if table.num_rows >= minutes * GPUS:
            return
        time.sleep(0.1)
    raise AssertionError(f"no {minutes} minutes in {spool} after {timeout_s}s")


def check_spool(spool: Path) -> pl.DataFrame:
    """Every file under a final name reads whole; every minute has all GPUs."""
    finals = [p for p in spool.iterdir() if not p.name.startswith(".")]
    assert finals and all(p.name.endswith(".parquet") for p in finals)
    table, quarantined = read_spool(finals)
    assert quarantined == []  # no torn file under a final name
    rows = pl.from_arrow(table)
    assert isinstance(rows, pl.DataFrame)
    per_minute = rows.group_by("minute").len()
    assert set(per_minute["len"]) == {GPUS}
    return rows


def last_second(rows: pl.DataFrame) -> int:
    return int(rows["minute"].max().timestamp())  # type: ignore[union-attr]


@pytest.mark.slow
def test_sigterm_flushes_every_finished_minute(tmp_path: Path) -> None:
    agent = start_agent(tmp_path)
    wait_for_rows(tmp_path, minutes=2)
    killed_at = time.time()
    agent.send_signal(signal.SIGTERM)
    output, _ = agent.communicate(timeout=30)
    assert agent.returncode == 0, output.decode()
    assert b"agent health" in output

    rows = check_spool(tmp_path)
    assert not list(tmp_path.glob(".*"))  # a clean exit leaves no temp file
    seconds = sorted({int(m.timestamp()) for m in rows["minute"]})
    assert seconds == list(range(seconds[0], seconds[-1] + 1))  # no gap
    # The "minute" in progress at the signal may be dropped, none before it.
    assert last_second(rows) >= math.floor(killed_at) - 1


@pytest.mark.slow
def test_sigkill_leaves_no_torn_file_and_loses_at_most_the_current_minute(
    tmp_path: Path,
) -> None:
    for _ in range(2):  # the second run also cleans up after the first
        agent = start_agent(tmp_path)
        wait_for_rows(tmp_path, minutes=2 + len(list(tmp_path.glob("*.parquet"))))
        time.sleep(0.37)  # land somewhere inside a "minute"
        killed_at = time.time()
        agent.kill()
        agent.communicate(timeout=30)
        rows = check_spool(tmp_path)
        # Lost: the minute in progress and at most the one that ended within one interval
        # (0.05 s) of the kill, before its write.
        assert last_second(rows) >= math.floor(killed_at) - 2


def test_missing_bindings_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)  # `import pynvml` now fails
    assert main(["agent", "--spool", str(tmp_path), "--duration", "1s"]) == 2
    err = capsys.readouterr().err
    assert "pip install nvidia-ml-py" in err and "Traceback" not in err


def test_importing_the_agent_does_not_import_pynvml() -> None:
    code = (
        "import sys, collectors.nvml.agent, collectors.nvml.read, collectors.nvml.simulated,"
        " cli.commands.agent; assert 'pynvml' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
