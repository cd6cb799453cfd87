"""A webhook receiver that refuses or never answers is said in one line naming its host, never
the URL's path (where a webhook's secret is); the run-failure sensor tries a refusing receiver
three times, a silent one once."""

import pytest

from flopledger.budgets.notify import post_json
from tests.network_fakes import refused_port, silent_server

pytestmark = pytest.mark.timeout(300)  # a guard against a hang, not a speed limit


def test_a_refused_receiver_is_named_by_host_not_by_its_secret_path():
    port = refused_port()
    reason = post_json(f"http://127.0.0.1:{port}/services/T000/B000/SECRET", {"text": "x"})
    assert reason == f"http://127.0.0.1:{port}: connection refused (nothing listens there)"


def test_a_silent_receiver_is_given_up_on_at_its_deadline():
    with silent_server() as port:
        reason = post_json(f"http://127.0.0.1:{port}/hook?token=SECRET", {"text": "x"}, 0.5)
    assert reason == f"http://127.0.0.1:{port}: no answer within 0.5 s"


def test_the_run_failure_sensor_retries_a_refusal_but_not_silence(monkeypatch):
    from flopledger.pipelines.alerts import sensors

    def scripted(reason):
        calls = []

        def post(url, payload, timeout_s):
            calls.append((url, timeout_s))
            return reason

        return calls, post

    slept = []
    monkeypatch.setattr(sensors.time, "sleep", slept.append)
    calls, post = scripted("http://h: connection refused (nothing listens there)")
    monkeypatch.setattr(sensors, "post_json", post)
    refused = sensors._post_with_retries("http://h/x", {})
    assert refused == "http://h: connection refused (nothing listens there)"
    assert len(calls) == 3 and slept == [1, 2]  # three tries, 1 s then 2 s apart, no wait after
    slept.clear()
    calls, post = scripted("http://h: no answer within 10 s")
    monkeypatch.setattr(sensors, "post_json", post)
    assert sensors._post_with_retries("http://h/x", {}) == "http://h: no answer within 10 s"
    assert len(calls) == 1 and slept == []


def test_the_configured_webhook_deadline_is_the_one_the_sensor_posts_with(tmp_path, monkeypatch):
    from flopledger.clients import network
    from flopledger.pipelines.alerts import sensors
    from flopledger.pipelines.resources import Flopledger

    monkeypatch.setattr(network, "_deadlines", dict(network._deadlines))  # put back after
    config = tmp_path / "flopledger.yaml"
    config.write_text("warehouse: {path: w.duckdb}\nnetwork: {webhook_deadline_s: 2.5}\n")
    Flopledger(config_path=str(config)).config()  # every asset and sensor reads it so
    calls = []
    monkeypatch.setattr(
        sensors, "post_json", lambda url, payload, timeout_s: calls.append(timeout_s)
    )
    sensors._post_with_retries("http://h/x", {})
    assert calls == [2.5]
