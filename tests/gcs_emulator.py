"""gcp-storage-emulator on a free local port, and a count of the requests it answered.

The real google-cloud-storage client talks to it (`STORAGE_EMULATOR_HOST`). The count wraps
the emulator's own request router, so it sees every HTTP request the client sent: listings
(`GET .../b/<bucket>/o`) and downloads (`alt=media`). A bucket named in `forbidden` answers
403 to everything, one in `unreadable` to downloads only, as Cloud Storage does for a caller
without the role (or with `storage.objects.list` but not `storage.objects.get`).
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from gcp_storage_emulator import server as emulator_server
from google.cloud import storage


@dataclass
class Emulator:
    client: storage.Client
    endpoint: str
    requests: list[tuple[str, str, dict[str, list[str]]]] = field(default_factory=list)
    forbidden: set[str] = field(default_factory=set)
    unreadable: set[str] = field(default_factory=set)  # buckets that list but refuse downloads

    def listings(self) -> list[str]:
        """The bucket of each object listing."""
        return [
            p.split("/b/")[1].split("/")[0]
            for m, p, _ in self.requests
            if m == "GET" and p.endswith("/o") and "/b/" in p
        ]

    def downloads(self) -> list[str]:
        """`bucket/name` of each object download."""
        out = []
        for method, path, query in self.requests:
            if method == "GET" and query.get("alt") == ["media"]:
                bucket, _, name = path.split("/b/", 1)[1].partition("/o/")
                out.append(f"{bucket}/{unquote(name)}")
        return out

    def upload_tree(self, root: Path, bucket: str, prefix: str = "") -> int:
        """Every file under `root` as `gs://bucket/prefix/<relative path>`; returns the count."""
        target = self.client.bucket(bucket)
        if not target.exists():
            target = self.client.create_bucket(bucket)
        count = 0
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            name = path.relative_to(root).as_posix()
            target.blob(f"{prefix}/{name}" if prefix else name).upload_from_filename(str(path))
            count += 1
        return count


@contextmanager
def running_emulator(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    endpoint = f"http://127.0.0.1:{port}"
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", endpoint)
    emulator = Emulator(storage.Client(), endpoint)
    real_handle = emulator_server.Router.handle

    def counting_handle(router: Any, method: str) -> None:
        handler = router._request_handler
        method = handler.headers.get("x-http-method-override") or method
        url = urlsplit(handler.path)
        emulator.requests.append((method, url.path, parse_qs(url.query)))
        refused = emulator.forbidden | (emulator.unreadable if "alt=media" in url.query else set())
        if any(f"/b/{b}/" in url.path or url.path.endswith(f"/b/{b}") for b in refused):
            body = b'{"error": {"code": 403, "message": "caller does not have storage.objects.list access"}}'
            handler.send_response(403)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
            return
        real_handle(router, method)

    monkeypatch.setattr(emulator_server.Router, "handle", counting_handle)
    server = emulator_server.create_server("127.0.0.1", port, in_memory=True)
    server.start()
    try:
        yield emulator
    finally:
        server.stop()
