"""`flopledger doctor` on a healthy deployment and on four broken ones (issue 39, item 2): a bad
config, missing Google credentials, an unreachable input, a stale snapshot. One line per
check, `--json` the same, `--serve` the same at /healthz; exit 0 healthy, 1 not, 2 for a
config that cannot be read. A deployment run only with `flopledger run` (no daemon, no cloud)
is healthy: those are notes."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest

from flopledger.budgets.alerts import Alert, store_alerts
from flopledger.budgets.delivery_store import DeliveryStore
from flopledger.cli.commands.doctor import checks, report
from flopledger.cli.doctor_server import DoctorServer
from flopledger.cli.main import main
from flopledger.settings import load_config
from flopledger.warehouse import open_warehouse
from tests.conftest import HANG_S, FileBooks, billing_row, run_record, write_config
from tests.network_fakes import refused_port

pytestmark = pytest.mark.timeout(300)  # a guard against a hang, not a speed limit
CONFIG = """
warehouse: {kind: duckdb, path: w.duckdb}
sources:
  gcp_billing: {paths: ["billing/*.ndjson"]}
  jobs: {paths: ["jobs/*.jsonl"]}
"""


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("deployment")
    write_config(root, CONFIG)
    FileBooks(root).build([billing_row()], [run_record("r")])
    return root


def _doctor(config: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    code = main(["doctor", "--config", str(config), *extra])
    return code, capsys.readouterr().out


def _states(out: str) -> dict[str, str]:
    """check -> its state word, from the lines (`ok    sources.jobs: 1 file(s)`)."""
    states = {}
    for line in out.splitlines()[:-1]:
        state, rest = line.split(None, 1)
        states[rest.split(":", 1)[0]] = state
    return states


def test_a_deployment_run_with_flopledger_run_is_healthy(ran: Path, capsys) -> None:
    code, out = _doctor(ran / "flopledger.yaml", capsys)
    assert code == 0, out
    assert out.splitlines()[-1] == "healthy"
    assert _states(out) == {
        "config": "ok",
        "sources.gcp_billing": "ok",
        "sources.jobs": "ok",
        "credentials": "note",  # nothing configured calls Google
        "warehouse": "ok",
        "schema": "ok",  # the raw tables are this version's
        "snapshot": "ok",
        "alerts": "ok",  # none raised: none waiting
        "data": "note",
        "dagster.yaml": "ok",  # the copy the first run made of this version's
        "job ingest": "ok",
        "job marts": "ok",
        "daemon": "note",  # no dagster-daemon: fine for `flopledger run`
    }
    assert "billing data through 2026-10-01" in out  # billing_row()'s day
    code, text = _doctor(ran / "flopledger.yaml", capsys, "--json")
    report = json.loads(text)
    assert code == 0 and report["healthy"] is True
    assert [c["check"] for c in report["checks"]] == list(_states(out))


def test_a_bad_config_is_unhealthy_and_exits_2(tmp_path: Path, capsys) -> None:
    config = write_config(tmp_path, "schedules: {billing: 'every full moon'}\n")
    code, out = _doctor(config, capsys)
    assert code == 2
    assert out.splitlines()[0].startswith(f"FAIL  config: {config}: schedules.billing: not a cron")
    assert out.splitlines()[-1] == "UNHEALTHY"


def test_missing_credentials_for_a_bigquery_warehouse(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "no-such-key.json"))
    monkeypatch.delenv("BIGQUERY_EMULATOR_HOST", raising=False)
    config = write_config(
        tmp_path, "warehouse: {kind: bigquery, project: acme-finops, dataset: flopledger}\n"
    )
    code, out = _doctor(config, capsys)
    assert code == 1
    states = _states(out)
    assert states["credentials"] == "FAIL" and states["warehouse"] == "note"
    line = next(x for x in out.splitlines() if x.startswith("FAIL  credentials"))
    assert "no Google credentials" in line and line.endswith("needed by warehouse (BigQuery)")


def test_an_unreachable_bucket_is_unhealthy(tmp_path: Path, capsys, monkeypatch) -> None:
    endpoint = f"http://127.0.0.1:{refused_port()}"
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", endpoint)
    config = write_config(
        tmp_path,
        "warehouse: {path: w.duckdb}\nsources:\n  gcp_billing: {paths: ['gs://inputs/b/*.ndjson']}\n",
    )
    code, out = _doctor(config, capsys)
    assert code == 1
    assert (
        f"FAIL  sources.gcp_billing: cannot list its inputs: gs://inputs/b/: cannot list: "
        f"{endpoint}: connection refused (nothing listens there)"
    ) in out.splitlines()
    assert _states(out)["credentials"] == "note"  # an emulator: no credentials needed


def test_a_path_matching_nothing_is_unhealthy(ran: Path, tmp_path: Path, capsys) -> None:
    config = write_config(
        tmp_path,
        f"warehouse: {{path: {ran / 'w.duckdb'}}}\nsources:\n  probes: {{paths: ['p/*.jsonl']}}\n",
    )
    code, out = _doctor(config, capsys)
    assert code == 1
    assert f"FAIL  sources.probes: {tmp_path / 'p/*.jsonl'} match no file" in out.splitlines()


def test_a_snapshot_older_than_the_run_that_published_it_is_stale(ran: Path, capsys) -> None:
    snapshot = ran / "w.snapshot.duckdb"
    assert snapshot.exists()
    was = snapshot.stat()
    day_ago = was.st_mtime - 86_400
    os.utime(snapshot, (day_ago, day_ago))
    try:
        code, out = _doctor(ran / "flopledger.yaml", capsys)
    finally:
        os.utime(snapshot, (was.st_atime, was.st_mtime))
    assert code == 1
    line = next(x for x in out.splitlines() if x.startswith("FAIL  snapshot"))
    assert "is older than the last marts run" in line


def test_an_instance_file_of_another_version_is_a_note_saying_what_to_do(ran: Path, capsys) -> None:
    deployed = ran / "dagster_home" / "dagster.yaml"
    was = deployed.read_text()
    deployed.write_text(was + "# an older version's copy\n")
    try:
        code, out = _doctor(ran / "flopledger.yaml", capsys)
    finally:
        deployed.write_text(was)
    assert code == 0  # edited on purpose, or old: only its owner can tell
    line = next(x for x in out.splitlines() if x.startswith("note  dagster.yaml"))
    assert "differs from this version's" in line and "copy that one over it" in line


def _get(port: int) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG_S)
    try:
        conn.request("GET", "/healthz")
        reply = conn.getresponse()
        return reply.status, json.loads(reply.read())
    finally:
        conn.close()


def _verdicts(report: dict) -> tuple[bool, list[tuple[str, str]]]:
    return report["healthy"], [(c["check"], c["status"]) for c in report["checks"]]


def test_the_served_healthz_says_what_doctor_json_says(ran: Path, tmp_path: Path, capsys) -> None:
    """`doctor --serve`'s /healthz: 503 "starting" before the first checks, then --json's object
    (200); a deployment broken since (its jobs files gone) is 503 at the next checks."""
    root = tmp_path / "deployment"
    shutil.copytree(ran, root)
    config = root / "flopledger.yaml"
    _, text = _doctor(config, capsys, "--json")
    server = DoctorServer(("127.0.0.1", 0), lambda: report(checks(str(config))))
    server.start(check=False)  # the test says when the checks run
    try:
        status, body = _get(server.port)
        assert status == 503 and body["checks"][0]["detail"].startswith("starting")
        server.refresh()
        status, body = _get(server.port)
        # the same checks and verdicts (a detail such as the snapshot's age moves with time)
        assert status == 200 and _verdicts(body) == _verdicts(json.loads(text))
        shutil.rmtree(root / "jobs")
        assert _get(server.port)[0] == 200  # the last report until the next checks
        server.refresh()
        status, body = _get(server.port)
        assert status == 503 and body["healthy"] is False
        assert {c["check"]: c["status"] for c in body["checks"]}["sources.jobs"] == "fail"
    finally:
        server.stop()


def test_doctor_serve_runs_until_sigterm(ran: Path) -> None:
    """The command itself: it prints its address, answers, and exits 0 on SIGTERM."""
    command = [str(Path(sys.executable).parent / "flopledger"), "doctor"]
    args = ["--config", str(ran / "flopledger.yaml"), "--serve", "127.0.0.1:0", "--every", "3600"]
    served = subprocess.Popen([*command, *args], stdout=subprocess.PIPE, text=True)
    try:
        assert served.stdout is not None
        line = served.stdout.readline()
        port = int(line.split("127.0.0.1:")[1].split("/")[0])
        deadline = time.monotonic() + HANG_S  # a hang guard: the first checks take seconds
        while (status := _get(port))[0] == 503 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert status[0] == 200 and status[1]["healthy"] is True
    finally:
        served.send_signal(signal.SIGTERM)
        assert served.wait(timeout=HANG_S) == 0


def test_doctor_serve_on_a_taken_port_says_so_in_one_line(ran: Path, capsys) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config = str(ran / "flopledger.yaml")
        assert main(["doctor", "--config", config, "--serve", f"127.0.0.1:{port}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"flopledger doctor: cannot serve on 127.0.0.1:{port}: ")
    assert len(err.splitlines()) == 1


def test_alerts_that_cannot_be_delivered_are_unhealthy(ran: Path, tmp_path: Path, capsys) -> None:
    """One alert published to a channel: waiting (no daemon has tried) is a note; its last
    post failing (HTTP 404 from the receiver) is a FAIL naming the channel and the error."""
    root = tmp_path / "deployment"
    shutil.copytree(ran, root)
    config = load_config(root / "flopledger.yaml")
    warehouse = open_warehouse(config.warehouse)
    alert = Alert("health:stale:jobs:2026-10-01", "health", "jobs", "warning", "t", "m", ["oncall"])
    store_alerts(warehouse, [alert], datetime(2026, 10, 2))
    warehouse.publish_snapshot()
    code, out = _doctor(root / "flopledger.yaml", capsys)
    assert code == 0 and _states(out)["alerts"] == "note"
    assert "note  alerts: 1 alert(s) not yet delivered" in out
    with DeliveryStore.of(config).claim(alert.alert_id, "oncall") as record:
        record.update(attempts=1, next_attempt_at="2026-10-02T00:01:00", last_error="HTTP 404")
    code, out = _doctor(root / "flopledger.yaml", capsys)
    assert code == 1
    assert "FAIL  alerts: 1 delivery(ies) failing, to oncall: HTTP 404 (`flopledger alerts`)" in out
