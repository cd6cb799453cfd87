"""The alert sensor against a local webhook receiver: each alert arrives exactly once.

The first delivery gets HTTP 500; the retry (after the backoff) succeeds; every tick is a
fresh sensor in a fresh instance (a restarted daemon), so only the delivery store carries
what was sent; the day is rerun, which copies the store's record into the alerts table. The
receiver got each alert once, with the expected payload. A tick delivers while writer runs
fill the queue and another process holds the live warehouse.
"""

import contextlib
import json
import subprocess
import sys
import threading
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import dagster as dg
import pytest
from dagster._core.storage.dagster_run import DagsterRun

from flopledger.pipelines.asset_jobs import WRITER_TAGS
from flopledger.pipelines.definitions import build_definitions
from flopledger.pipelines.resources import Flopledger

BUDGETS = """
channels:
  finance: {kind: slack, url_env: FLOPLEDGER_TEST_FINANCE}
  ops: {kind: json, url_env: FLOPLEDGER_TEST_OPS}
budgets:
  - {name: llm-monthly, scope: {team: llm}, amount: 1000, thresholds: [50, 80], forecast_alerts: false, channels: [finance, ops]}
"""


class Receiver:
    """An HTTP server on 127.0.0.1 that records JSON bodies per path; the first `fail` posts get 500."""

    def __init__(self, fail: int = 1) -> None:
        self.received: list[tuple[str, dict]] = []
        self.fail = fail
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if receiver.fail > 0:
                    receiver.fail -= 1
                    self.send_response(500)
                else:
                    receiver.received.append((self.path, body))
                    self.send_response(200)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "Receiver":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver(monkeypatch):
    with Receiver(fail=1) as r:
        monkeypatch.setenv("FLOPLEDGER_TEST_FINANCE", r.url + "/slack")
        monkeypatch.setenv("FLOPLEDGER_TEST_OPS", r.url + "/ops")
        yield r


_SENSORS: dict[str, dg.SensorDefinition] = {}


def tick(ledger, instance: dg.DagsterInstance | None = None) -> str:
    """Evaluate the sensor once in a fresh instance and context (a restarted daemon): only the
    delivery store in dagster_home carries over. Returns the tick's skip reason."""
    key = str(ledger.config_path)
    if key not in _SENSORS:
        _SENSORS[key] = build_definitions(key).get_sensor_def("alert_notifier")
    sensor = _SENSORS[key]
    with contextlib.ExitStack() as stack:
        if instance is None:
            instance = stack.enter_context(dg.instance_for_test())
        context = dg.build_sensor_context(
            instance=instance,
            resources={"flopledger": Flopledger(config_path=str(ledger.config_path))},
        )
        result = sensor(context)
        return result.skip_message


def test_each_alert_is_delivered_exactly_once(ledger, clock, receiver):
    ledger.setup(BUDGETS).run()
    # llm: 500 of 1000 -> 50% crossed, 80% not: one alert, two channels.
    assert ledger.alert_ids() == ["threshold:llm-monthly:2026-10:50"]
    assert tick(ledger) == "sent 1, failed 1, waiting 0"  # finance got 500; ops got it
    assert [p for p, _ in receiver.received] == ["/ops"]
    clock.now += timedelta(seconds=30)  # inside the 60 s backoff: nothing is tried
    assert tick(ledger) == "sent 0, failed 0, waiting 1"
    assert len(receiver.received) == 1
    clock.now += timedelta(seconds=31)  # backoff over: the retry succeeds
    retried = clock.now
    assert tick(ledger) == "sent 1, failed 0, waiting 0"  # a restarted daemon: the store says
    clock.now += timedelta(minutes=5)
    assert tick(ledger) == "sent 0, failed 0, waiting 0"  # which channels already have it
    # The table still says nothing was delivered: the notifier never writes the warehouse.
    assert ledger.rows("SELECT notified_at FROM alerts")[0]["notified_at"] is None
    ledger.run()  # the same day rerun: the same ids, nothing new; the record copied in
    assert tick(ledger) == "sent 0, failed 0, waiting 0"
    assert sorted(p for p, _ in receiver.received) == ["/ops", "/slack"]
    slack = dict(receiver.received)["/slack"]
    assert slack["text"] == (
        "Budget llm-monthly passed 50% for 2026-10: 500.00 USD spent of 1,000.00 USD (50.0%) in 2026-10 (label team=llm)"
    )
    assert (
        slack["blocks"][1]["elements"][0]["text"]
        == "flopledger · `threshold:llm-monthly:2026-10:50`"
    )
    generic = dict(receiver.received)["/ops"]
    assert {
        k: generic[k] for k in ("source", "alert_id", "kind", "severity", "subject", "raised_at")
    } == {
        "source": "flopledger",
        "alert_id": "threshold:llm-monthly:2026-10:50",
        "kind": "threshold",
        "severity": "warning",
        "subject": "llm-monthly",
        "raised_at": "2026-10-11T06:00:00",
    }
    assert generic["details"]["spend_to_date"] == "500.000000000"
    row = ledger.rows("SELECT notified_at, deliveries FROM alerts")[0]
    assert row["notified_at"] == retried  # when the retry delivered the last channel
    state = json.loads(row["deliveries"])
    assert (state["finance"]["attempts"], state["ops"]["attempts"]) == (2, 1)
    assert state["finance"]["last_error"] is None
    assert receiver.url not in row["deliveries"]  # URLs are never stored
    store = ledger.root / "dagster_home" / "alert_deliveries.sqlite"
    assert receiver.url.encode() not in store.read_bytes()


def test_missing_url_env_keeps_the_alert_pending(ledger, clock, receiver, monkeypatch):
    monkeypatch.delenv("FLOPLEDGER_TEST_FINANCE")
    receiver.fail = 0
    ledger.setup(BUDGETS).run()
    assert tick(ledger) == "sent 1, failed 0, waiting 1"
    assert [p for p, _ in receiver.received] == ["/ops"]
    ledger.run()
    assert ledger.rows("SELECT notified_at FROM alerts")[0]["notified_at"] is None
    assert tick(ledger) == "sent 0, failed 0, waiting 1"


def _hold_write_lock(path) -> subprocess.Popen[str]:
    """Another process with the live warehouse open for writing, as a writer run has it: it
    prints a line once the file is held and keeps it until killed."""
    code = (
        "import duckdb, sys, time\n"
        f"con = duckdb.connect({str(path)!r})\n"
        "print('held', flush=True)\n"
        "time.sleep(3600)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def test_alerts_are_delivered_while_a_writer_runs_and_another_starts(ledger, clock, receiver):
    """The queue holds a writer under way and one starting, and the live file is locked by
    another process: the tick still delivers (it reads the snapshot, writes its own store)."""
    receiver.fail = 0
    ledger.setup(BUDGETS).run()
    with dg.instance_for_test() as instance:
        for status in (dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.STARTING):
            instance.add_run(DagsterRun(job_name="marts", status=status, tags=WRITER_TAGS))
        holder = _hold_write_lock(ledger.root / "w.duckdb")
        try:
            assert tick(ledger, instance) == "sent 2, failed 0, waiting 0"
        finally:
            holder.kill()
            holder.wait()
    assert sorted(p for p, _ in receiver.received) == ["/ops", "/slack"]


def test_nothing_published_yet_is_a_quiet_tick(ledger, receiver):
    ledger.setup(BUDGETS)  # configured, never run: no warehouse, no snapshot
    assert tick(ledger).startswith("nothing published yet")
    assert receiver.received == []
