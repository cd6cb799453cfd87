"""The agent's health endpoint, scraped over HTTP during a simulated run; /healthz; sd_notify."""

from __future__ import annotations

import http.client
import json
import socket
import tempfile
import threading
from pathlib import Path

import pytest
from nvml_fakes import LABELS, START
from prometheus_client.parser import text_string_to_metric_families

from flopledger.collectors.nvml.agent import Agent, AgentConfig
from flopledger.collectors.nvml.health import (
    HealthServer,
    HealthSnapshot,
    Liveness,
    SystemdNotifier,
    health_report,
    parse_address,
)
from flopledger.collectors.nvml.nvml import Nvml
from flopledger.collectors.nvml.simulated import SimulatedNvml
from tests.collectors.nvml.nvml_fakes import ManualClock
from tests.conftest import HANG_S


def get(port: int, path: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG_S)
    try:
        conn.request("GET", path)
        reply = conn.getresponse()
        return reply.status, reply.read().decode()
    finally:
        conn.close()


def samples(text: str) -> dict[str, float]:
    return {
        s.name: s.value for family in text_string_to_metric_families(text) for s in family.samples
    }


class StallingClock(ManualClock):
    """A manual clock that stalls 2.5 s after the tick at t = 30 and scrapes after t = 100."""

    def __init__(self, epoch_s: float) -> None:
        super().__init__(epoch_s)
        self.agent: Agent | None = None
        self.scraped: dict[str, tuple[int, str]] = {}
        self.spool_bytes_then = -1

    def wait(self, seconds: float, stop: threading.Event) -> None:
        assert self.agent is not None and self.agent.health_server is not None
        if self.monotonic_s == 30:
            self.monotonic_s += 2.5
        if self.monotonic_s == 100 and not self.scraped:
            port = self.agent.health_server.port
            self.scraped = {p: get(port, p) for p in ("/metrics", "/healthz")}
            spool = self.agent.config.spool_dir
            self.spool_bytes_then = sum(f.stat().st_size for f in spool.iterdir() if f.is_file())
        super().wait(seconds, stop)


def test_agent_metrics_scraped_during_a_simulated_run(tmp_path: Path) -> None:
    """4 simulated GPUs, scenario gpu_lost (GPU 3 falls off the bus at t = 90 s), 1 Hz.

    Ticks at t = 0..30 (31); the loop stalls 2.5 s, so the next tick runs at t = 33.5 and
    ticks 32 and 33 are skipped (late_ticks = 2); then t = 34..100 (67). Scraped right
    after the tick at t = 100: 31 + 1 + 67 = 99 ticks, 99 * 4 = 396 readings, GPU 3 lost at
    t = 90..100 = 11 lost readings, 1 GPU lost now. Minute 0 closed at t = 60: 4 rows.
    No uploader: the backlog is closed files, none yet (windows are 10 minutes).
    """
    clock = StallingClock(epoch_s=START.timestamp())
    backend = SimulatedNvml("gpu_lost", gpus=4, clock=clock.monotonic)
    config = AgentConfig(
        spool_dir=tmp_path / "spool",
        labels=LABELS,
        duration_s=120.0,
        health_address=("127.0.0.1", 0),
    )
    agent = Agent(config, Nvml(backend), clock=clock)
    clock.agent = agent
    assert agent.run(threading.Event()) == 0

    status, text = clock.scraped["/metrics"]
    assert status == 200
    got = samples(text)
    assert got["flopledger_agent_gpus"] == 4
    assert got["flopledger_agent_ticks_total"] == 99
    assert got["flopledger_agent_late_ticks_total"] == 2
    assert got["flopledger_agent_samples_total"] == 396
    assert got["flopledger_agent_lost_samples_total"] == 11
    assert got["flopledger_agent_lost_gpus"] == 1
    assert got["flopledger_agent_rows_total"] == 4
    assert got["flopledger_agent_upload_backlog_files"] == 0
    assert got["flopledger_agent_uploaded_files_total"] == 0
    assert got["flopledger_agent_last_upload_success_timestamp_seconds"] == 0
    assert got["flopledger_agent_spool_bytes"] == clock.spool_bytes_then > 0
    assert got["flopledger_agent_pod_lookup_errors_total"] == 0
    health_status, health_text = clock.scraped["/healthz"]
    assert health_status == 200
    # `flopledger doctor --json`'s shape: GPU 3 lost and no upload are notes, not failures.
    report = json.loads(health_text)
    assert report["healthy"] is True
    assert {c["check"]: c["status"] for c in report["checks"]} == {
        "loop": "ok",
        "gpus": "note",
        "spool": "ok",
        "upload": "note",
    }
    details = {c["check"]: c["detail"] for c in report["checks"]}
    assert details["gpus"] == "4 GPU(s) at discovery, 1 lost at the last tick"
    assert details["upload"] == "off: the spool is read where it is"
    assert details["loop"].startswith("ok: ")
    # After the run the server is gone (the port is closed).
    with pytest.raises(OSError):
        get(agent.health_server.port, "/healthz")  # type: ignore[union-attr]


def test_agent_healthz_fails_when_the_loop_stops_ticking() -> None:
    """stale_after 5 s: 200 before any tick (4 s since start), 200 at 3 s after a tick, 503 at 6 s."""
    now = [0.0]
    liveness = Liveness(stale_after_s=5.0, monotonic=lambda: now[0])
    server = HealthServer(("127.0.0.1", 0), lambda: None, liveness)  # type: ignore[arg-type,return-value]
    server.start()
    try:
        now[0] = 4.0
        status, text = get(server.port, "/healthz")
        assert (status, json.loads(text)) == (
            200,
            {
                "healthy": True,
                "checks": [
                    {
                        "check": "loop",
                        "status": "ok",
                        "detail": "ok: 4.0s since start (no tick yet)",
                    }
                ],
            },
        )
        liveness.ticked()
        now[0] = 7.0
        assert get(server.port, "/healthz")[0] == 200
        now[0] = 10.0
        status, text = get(server.port, "/healthz")
        assert status == 503
        assert json.loads(text)["healthy"] is False
        assert json.loads(text)["checks"][0] == {
            "check": "loop",
            "status": "fail",
            "detail": "stale: 6.0s since last tick > 5s",
        }
    finally:
        server.stop()


def test_agent_tells_systemd_ready_watchdog_and_stopping(tmp_path: Path) -> None:
    """One simulated minute at 1 Hz, ticks at t = 0..59, watchdog every 10 s: READY=1, then
    WATCHDOG=1 at t = 0, 10, 20, 30, 40, 50 (6), STOPPING=1."""
    with tempfile.TemporaryDirectory(dir="/tmp", prefix="notify") as d:
        address = str(Path(d) / "notify.sock")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        listener.bind(address)
        try:
            clock = ManualClock(epoch_s=START.timestamp())
            backend = SimulatedNvml("training", gpus=1, clock=clock.monotonic)
            config = AgentConfig(spool_dir=tmp_path, labels=LABELS, duration_s=60.0)
            notifier = SystemdNotifier(address, watchdog_every_s=10.0)
            agent = Agent(config, Nvml(backend), clock=clock, notifier=notifier)
            assert agent.run(threading.Event()) == 0
            listener.settimeout(1.0)
            messages = [listener.recv(64).decode() for _ in range(8)]
            listener.setblocking(False)
            with pytest.raises(BlockingIOError):
                listener.recv(64)  # nothing more
        finally:
            listener.close()
    assert messages == ["READY=1"] + ["WATCHDOG=1"] * 6 + ["STOPPING=1"]


def test_agent_notifier_is_off_without_notify_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert not SystemdNotifier().enabled
    assert SystemdNotifier("@abstract").address == "\0abstract"
    monkeypatch.setenv("WATCHDOG_USEC", "30000000")  # WatchdogSec=30 -> every 15 s
    assert SystemdNotifier("/run/x").watchdog_every_s == 15.0


@pytest.mark.parametrize(
    ("text", "expected"),
    [(":9464", ("0.0.0.0", 9464)), ("127.0.0.1:0", ("127.0.0.1", 0))],  # noqa: S104
)
def test_agent_health_address(text: str, expected: tuple[str, int]) -> None:
    assert parse_address(text) == expected


@pytest.mark.parametrize("text", ["9464", "host:", "host:port", ":70000"])
def test_agent_health_address_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not HOST:PORT"):
        parse_address(text)


def test_agent_cli_refuses_a_bad_health_address(tmp_path: Path, capsys) -> None:
    from flopledger.cli.main import main

    code = main(["agent", "--spool", str(tmp_path), "--simulate", "idle", "--health", "9464"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("flopledger: --health: not HOST:PORT: '9464'") and err.count("\n") == 1


def test_healthz_says_a_failing_upload_and_dropped_files_as_notes() -> None:
    """An upload that failed 3 times with 2 files waiting, last good at 2026-10-01 00:00:00
    UTC (epoch 1790812800), and 1 file deleted by the cap: notes; the loop alone decides."""
    snapshot = HealthSnapshot(
        gpus=8,
        lost_gpus=0,
        ticks=10,
        late_ticks=0,
        samples=80,
        lost_samples=0,
        rows=8,
        files_written=3,
        files_dropped=1,
        spool_bytes=4096,
        upload_backlog=2,
        uploaded=5,
        upload_failures=3,
        last_upload_epoch_s=1790812800.0,
        pod_lookup_errors=0,
        uploading=True,
    )
    report = health_report(True, "ok: 0.5s since last tick", snapshot)
    assert report["healthy"] is True
    assert report["checks"][1:] == [
        {
            "check": "gpus",
            "status": "ok",
            "detail": "8 GPU(s) at discovery, 0 lost at the last tick",
        },
        {
            "check": "spool",
            "status": "note",
            "detail": "4096 bytes, 1 file(s) deleted by the size/age cap",
        },
        {
            "check": "upload",
            "status": "note",
            "detail": "2 file(s) waiting, 3 failed attempt(s), last success 2026-10-01T00:00:00Z",
        },
    ]
