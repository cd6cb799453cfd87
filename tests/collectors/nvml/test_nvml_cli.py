"""`flopledger agent --simulate` as a real process, stopped by SIGTERM and by SIGKILL.

To keep wall time small the agent samples every 0.05 s with a test-only one-second
"minute" (`--minute-seconds 1`, hidden from --help): each "minute" has ~20 readings and
the open spool file is rewritten every second, so a kill often lands mid-write.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import polars as pl
import pytest

from flopledger.cli.main import main
from flopledger.collectors.nvml.read import read_spool
from tests.conftest import HANG_S

FLOPLEDGER = Path(sys.executable).parent / "flopledger"
GPUS = 8
DATETIME = re.compile(r"datetime\.datetime\(([\d, ]+)\)")  # a minute as the agent logs it


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


def wait_for_rows(agent: subprocess.Popen[bytes], spool: Path, minutes: int) -> set[datetime]:
    """Once the spool holds `minutes` whole minutes: those minutes. No deadline (the agent
    gets there however loaded the machine; a hang is pytest-timeout's to end)."""
    while True:
        table, _ = read_spool([spool])
        if table.num_rows >= minutes * GPUS:
            return set(table.column("minute").to_pylist())
        if agent.poll() is not None:
            output = agent.stdout.read() if agent.stdout else b""
            raise AssertionError(f"the agent exited ({agent.returncode}): {output.decode()}")
        time.sleep(0.1)


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


def minutes(rows: pl.DataFrame) -> set[datetime]:
    return set(rows["minute"].to_list())


def not_written(output: str) -> list[datetime]:
    """The minutes the agent's last line says were in progress, not written."""
    line = next(x for x in output.splitlines() if "minute(s) in progress not written" in x)
    return [datetime(*map(int, args.split(", "))) for args in DATETIME.findall(line)]


@pytest.mark.slow
def test_sigterm_flushes_every_finished_minute(tmp_path: Path) -> None:
    agent = start_agent(tmp_path)
    before = wait_for_rows(agent, tmp_path, minutes=2)
    agent.send_signal(signal.SIGTERM)
    output, _ = agent.communicate(timeout=HANG_S)
    assert agent.returncode == 0, output.decode()
    assert b"agent health" in output

    rows = check_spool(tmp_path)
    assert not list(tmp_path.glob(".*"))  # a clean exit leaves no temp file
    seconds = sorted({int(m.timestamp()) for m in rows["minute"]})
    assert seconds == list(range(seconds[0], seconds[-1] + 1))  # no gap
    assert before <= minutes(rows)  # nothing written before the signal is lost
    # Every row the agent counted as written is in the spool, and what it did not write is
    # at most the "minute" in progress at the signal: none before the last one written.
    written = int(re.search(rb"agent health: .* rows=(\d+) ", output).group(1))  # type: ignore[union-attr]
    assert written == len(rows)
    dropped = not_written(output.decode())
    assert len(dropped) <= 1 and all(d > max(minutes(rows)) for d in dropped), dropped


@pytest.mark.slow
def test_sigkill_leaves_no_torn_file_and_loses_at_most_the_current_minute(
    tmp_path: Path,
) -> None:
    for _ in range(2):  # the second run also cleans up after the first
        agent = start_agent(tmp_path)
        before = wait_for_rows(agent, tmp_path, 2 + len(list(tmp_path.glob("*.parquet"))))
        time.sleep(0.37)  # land somewhere inside a "minute"
        agent.kill()
        agent.communicate(timeout=HANG_S)
        rows = check_spool(tmp_path)
        # Lost: only what was not yet written (the minute in progress, and at most the one
        # that ended within one interval of the kill, before its write); every minute that
        # could be read before the kill still reads whole.
        assert before <= minutes(rows)


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
