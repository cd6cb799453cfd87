"""Every door to a network service says a refused connection and a silent endpoint in one line
naming the endpoint: Cloud Storage, BigQuery, Cloud Monitoring (gRPC), the Kubernetes API.

Two stand-ins (tests/network_fakes.py): a port bound and closed (nobody listens: refused), and
a socket that listens and never answers (the deadline ends the wait). The deadlines here are
short so a silent endpoint is given up on soon; what is asserted is the error, never the time.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
from google.api_core import exceptions

from flopledger.clients.bigquery import BigQueryError, make_client, run_query, table_exists
from flopledger.clients.network import limit_refusals
from flopledger.collectors.cloud_monitoring.collect import collect_tpu_samples
from flopledger.collectors.cloud_monitoring.query import CloudMonitoringError
from flopledger.collectors.gcs import (
    StorageError,
    download_object,
    list_objects,
    reader_client,
    storage_client,
)
from flopledger.collectors.inputs import list_inputs
from flopledger.collectors.kubernetes.client import (
    KubernetesError,
    core_api,
    list_pods,
    watch_pods,
)
from tests.network_fakes import refused_port, silent_server

# A guard against a hang (a retry that runs for minutes fails it), not a speed limit.
pytestmark = pytest.mark.timeout(300)
REFUSED = "connection refused (nothing listens there)"
DUTY = "tpu.googleapis.com/accelerator/duty_cycle"


def test_a_refused_connection_is_retried_twice_and_silence_never():
    # The library's predicate says every error here is transient; the refusals it lets
    # through are the first two, a timeout none, anything else as the library says.
    should_retry = limit_refusals(lambda exc: True)
    refused = exceptions.ServiceUnavailable("failed to connect: Connection refused")
    assert [should_retry(refused) for _ in range(3)] == [True, True, False]
    assert should_retry(TimeoutError("timed out")) is False
    assert should_retry(exceptions.DeadlineExceeded("Deadline Exceeded")) is False
    assert should_retry(exceptions.InternalServerError("backend error")) is True
    assert limit_refusals(lambda exc: False)(exceptions.InternalServerError("x")) is False


def test_gcs_refused(monkeypatch: pytest.MonkeyPatch):
    endpoint = f"http://127.0.0.1:{refused_port()}"
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", endpoint)
    with pytest.raises(StorageError) as error:
        list_inputs(["gs://inputs/billing/*.ndjson"], reader_client)
    assert str(error.value) == f"gs://inputs/billing/: cannot list: {endpoint}: {REFUSED}"


def test_gcs_silent(tmp_path: Path):
    with silent_server() as port:
        endpoint = f"http://127.0.0.1:{port}"
        client = storage_client(endpoint)
        with pytest.raises(StorageError) as listing:
            list_objects(client, "inputs", "billing", deadline_s=0.5)
        with pytest.raises(StorageError) as reading:
            download_object(client, "inputs", "a.ndjson", "7", str(tmp_path / "a"), 0.5)
    assert (
        str(listing.value)
        == f"gs://inputs/billing: cannot list: {endpoint}: no answer within 0.5 s"
    )
    assert (
        str(reading.value)
        == f"gs://inputs/a.ndjson: cannot read: {endpoint}: no answer within 0.5 s"
    )


def test_bigquery_refused():
    port = refused_port()
    client = make_client("billing-admin", f"127.0.0.1:{port}", None, "US")
    with pytest.raises(BigQueryError) as query:
        run_query(client, "SELECT 1", None, 10**9)
    with pytest.raises(BigQueryError) as table:
        table_exists(client, "billing-admin.ds.t")
    where = f"http://127.0.0.1:{port}"
    assert str(query.value) == f"BigQuery query failed: {where}: {REFUSED}"
    assert str(table.value) == f"reading billing-admin.ds.t failed: {where}: {REFUSED}"


def test_bigquery_silent():
    with silent_server() as port:
        client = make_client("billing-admin", f"127.0.0.1:{port}", None, "US", deadline_s=0.5)
        with pytest.raises(BigQueryError) as query:
            run_query(client, "SELECT 1", None, 10**9)
        with pytest.raises(BigQueryError) as table:
            table_exists(client, "billing-admin.ds.t")
    where = f"http://127.0.0.1:{port}"
    assert str(query.value) == f"BigQuery query failed: {where}: no answer within 0.5 s"
    assert str(table.value) == f"reading billing-admin.ds.t failed: {where}: no answer within 0.5 s"


def _collect(endpoint: str, deadline_s: float = 30.0):
    start, end = datetime(2026, 5, 1, 10, 0), datetime(2026, 5, 1, 10, 3)
    return collect_tpu_samples(
        "my-project", start, end, endpoint=endpoint, metric_types=[DUTY], deadline_s=deadline_s
    )


def test_cloud_monitoring_refused():
    # UNAVAILABLE from a server is retried with backoff for minutes (RetryPolicy); UNAVAILABLE
    # because nothing listens is said after two quick retries.
    endpoint = f"127.0.0.1:{refused_port()}"
    with pytest.raises(CloudMonitoringError) as error:
        _collect(endpoint)
    assert str(error.value) == (
        f'ListTimeSeries metric.type = "{DUTY}" page 1 on projects/my-project: {endpoint}: {REFUSED}'
    )


def test_cloud_monitoring_silent():
    with silent_server() as port, pytest.raises(CloudMonitoringError) as error:
        _collect(f"127.0.0.1:{port}", deadline_s=0.5)
    assert str(error.value) == (
        f'ListTimeSeries metric.type = "{DUTY}" page 1: 127.0.0.1:{port}: no answer within '
        "deadline_s=0.5 (DEADLINE_EXCEEDED); raise deadline_s or narrow the window"
    )


def _kubeconfig(path: Path, port: int) -> str:
    cluster = {"name": "local", "cluster": {"server": f"http://127.0.0.1:{port}"}}
    context = {"name": "local", "context": {"cluster": "local", "user": "tester"}}
    path.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [cluster],
                "contexts": [context],
                "users": [{"name": "tester", "user": {"token": "t"}}],
                "current-context": "local",
            }
        )  # fmt: skip
    )
    return str(path)


def test_kubernetes_refused(tmp_path: Path):
    port = refused_port()
    api = core_api(kubeconfig=_kubeconfig(tmp_path / "kubeconfig", port))
    with pytest.raises(KubernetesError) as listing:
        list_pods(api)
    with pytest.raises(KubernetesError) as watching:
        list(watch_pods(api, "100", timeout_s=1))
    expected = f"kubernetes API http://127.0.0.1:{port}: {REFUSED}"
    assert (str(listing.value), str(watching.value)) == (expected, expected)


def test_kubernetes_silent(tmp_path: Path):
    with silent_server() as port:
        api = core_api(kubeconfig=_kubeconfig(tmp_path / "kubeconfig", port))
        with pytest.raises(KubernetesError) as listing:
            list_pods(api, deadline_s=0.5)
        # A watch may be quiet for its timeout_s (1 s here): silence past that + the deadline.
        with pytest.raises(KubernetesError) as watching:
            list(watch_pods(api, "100", timeout_s=1, deadline_s=0.5))
    where = f"kubernetes API http://127.0.0.1:{port}"
    assert str(listing.value) == f"{where}: no answer within 0.5 s"
    assert str(watching.value) == f"{where}: no answer within 1.5 s"  # 1 + 0.5


def test_flopledger_run_waits_the_configured_deadline_for_a_silent_bucket(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    from flopledger.cli.main import main
    from flopledger.clients import network

    monkeypatch.setattr(network, "_deadlines", dict(network._deadlines))  # put back after
    config = tmp_path / "flopledger.yaml"
    config.write_text(
        "warehouse: {path: w.duckdb}\nnetwork: {deadline_s: 0.75}\n"
        "sources:\n  gcp_billing:\n    paths: ['gs://inputs/billing/*.ndjson']\n"
    )
    with silent_server() as port:
        endpoint = f"http://127.0.0.1:{port}"
        monkeypatch.setenv("STORAGE_EMULATOR_HOST", endpoint)
        code = main(["run", "--config", str(config)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2  # a source that cannot be listed: one line, no traceback
    assert err[-1] == (
        f"flopledger: gs://inputs/billing/: cannot list: {endpoint}: no answer within 0.75 s"
    )
