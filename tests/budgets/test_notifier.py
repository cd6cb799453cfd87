"""The alert sensor against a local webhook receiver: each alert arrives exactly once.

The first delivery gets HTTP 500; the retry (after the backoff) succeeds; the sensor is
rebuilt from its cursor twice, and from no cursor at all; the day is rerun. The receiver
got each alert once, with the expected payload.
"""

import json
import threading
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import dagster as dg
import pytest

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


def tick(ledger, cursor: str | None) -> str | None:
    """Evaluate the sensor once in a fresh instance and context (a restarted daemon): only the
    cursor passed in carries over."""
    key = str(ledger.config_path)
    if key not in _SENSORS:
        _SENSORS[key] = build_definitions(key).get_sensor_def("alert_notifier")
    sensor = _SENSORS[key]
    with dg.instance_for_test() as instance:
        context = dg.build_sensor_context(
            cursor=cursor,
            instance=instance,
            resources={"flopledger": Flopledger(config_path=str(ledger.config_path))},
        )
        sensor(context)
        return context.cursor


def test_each_alert_is_delivered_exactly_once(ledger, clock, receiver):
    ledger.setup(BUDGETS).run()
    # llm: 500 of 1000 -> 50% crossed, 80% not: one alert, two channels.
    assert ledger.alert_ids() == ["threshold:llm-monthly:2026-10:50"]
    cursor = tick(ledger, None)  # the first post (to finance) gets 500; ops gets it
    assert [p for p, _ in receiver.received] == ["/ops"]
    clock.now += timedelta(seconds=30)  # inside the 60 s backoff: nothing is tried
    cursor = tick(ledger, cursor)
    assert len(receiver.received) == 1
    clock.now += timedelta(seconds=31)  # backoff over: the retry succeeds
    cursor = tick(ledger, cursor)  # rebuilt from its cursor (1)
    cursor = tick(ledger, cursor)  # rebuilt from its cursor (2)
    assert tick(ledger, None) is not None  # a new daemon without a cursor: the table says sent
    ledger.run()  # the same day rerun: the same ids, nothing new
    tick(ledger, cursor)
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
    assert row["notified_at"] == clock.now  # the retry's tick delivered the last channel
    state = json.loads(row["deliveries"])
    assert (state["finance"]["attempts"], state["ops"]["attempts"]) == (2, 1)
    assert receiver.url not in row["deliveries"]  # URLs are never stored


def test_missing_url_env_keeps_the_alert_pending(ledger, clock, receiver, monkeypatch):
    monkeypatch.delenv("FLOPLEDGER_TEST_FINANCE")
    receiver.fail = 0
    ledger.setup(BUDGETS).run()
    tick(ledger, None)
    assert [p for p, _ in receiver.received] == ["/ops"]
    assert ledger.rows("SELECT notified_at FROM alerts")[0]["notified_at"] is None
