"""Shipping to Cloud Storage through the real client, against gcp-storage-emulator."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gcp_storage_emulator.server import create_server
from google.cloud import storage
from nvml_fakes import minute

from flopledger.collectors.nvml.read import read_spool
from flopledger.collectors.nvml.spool import write_spool_file
from flopledger.collectors.nvml.upload import Uploader


@pytest.fixture
def gcs(monkeypatch: pytest.MonkeyPatch) -> Iterator[storage.Client]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = create_server("127.0.0.1", port, in_memory=True)
    server.start()
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", f"http://127.0.0.1:{port}")
    try:
        yield storage.Client()
    finally:
        server.stop()


class Clock:
    def __init__(self) -> None:
        self.now_s = 0.0

    def __call__(self) -> float:
        return self.now_s


def spool_file(directory: Path) -> Path:
    rows = [
        {
            "minute": minute(0),
            "node": "n1",
            "gpu_uuid": "GPU-0",
            "gpu_index": 0,
            "samples": 60,
            "status": "ok",
            "power_w": 500.0,
        }
    ]
    return write_spool_file(directory, rows)


def test_failed_upload_is_retried_and_nothing_deleted_before_confirmed(
    tmp_path: Path, gcs: storage.Client
) -> None:
    path = spool_file(tmp_path)
    clock = Clock()
    uploader = Uploader("gs://fleet-spool/nvml", client=gcs, monotonic=clock, backoff_base_s=2)

    # Failure injected: the bucket does not exist yet (404 from the server).
    assert uploader.pump([path]) == 0
    assert path.exists() and uploader.failures == 1 and uploader.backlog == 1
    clock.now_s = 1.0  # backoff is 2 s: not due yet, no attempt
    assert uploader.pump([path]) == 0 and uploader.failures == 1

    gcs.create_bucket("fleet-spool")
    clock.now_s = 2.0
    assert uploader.pump([path]) == 1
    assert not path.exists() and uploader.backlog == 0
    name = f"nvml/dt=2026-07-14/{path.name}"
    assert gcs.bucket("fleet-spool").get_blob(name) is not None

    table, quarantined = read_spool(["gs://fleet-spool/nvml"], client=gcs)
    assert quarantined == [] and table.column("power_w").to_pylist() == [500.0]


class _LostWrites:
    """A client whose uploads 'succeed' but never land: confirmation must fail."""

    def __init__(self, real: storage.Client) -> None:
        self.real = real

    def bucket(self, name: str) -> Any:
        bucket = self.real.bucket(name)
        bucket.get_blob = lambda *args, **kwargs: None
        return bucket


def test_unconfirmed_upload_keeps_the_file(tmp_path: Path, gcs: storage.Client) -> None:
    gcs.create_bucket("fleet-spool")
    path = spool_file(tmp_path)
    clock = Clock()
    uploader = Uploader("gs://fleet-spool", client=_LostWrites(gcs), monotonic=clock)
    assert uploader.pump([path]) == 0
    assert path.exists() and uploader.failures == 1

    uploader._client = gcs  # the next attempt is confirmed
    clock.now_s = 10.0
    assert uploader.pump([path]) == 1 and not path.exists()


def test_reader_reports_an_unreachable_bucket(gcs: storage.Client) -> None:
    table, quarantined = read_spool(["gs://no-such-bucket/nvml"], client=gcs)
    assert table.num_rows == 0
    assert len(quarantined) == 1 and quarantined[0].reason.startswith("cannot list")
