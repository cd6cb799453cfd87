"""deploy/nginx/flopledger.conf under the real nginx (docs/proxy.md): nothing reaches the
Dagster UI or the dashboards without the password, and what does arrives with the user's
name, the scheme and its websocket upgrade intact.

The shipped file runs as it is but for its ports, certificate, password file and upstreams,
each swapped by exact text (a change to one of them fails here until this test follows it).
Two `http.server` backends on loopback stand in for dagster-webserver and Streamlit and
record what they were sent; a backend that must not be reached is checked to be untouched.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.conftest import HANG_S, REPO

SHIPPED = REPO / "deploy" / "nginx" / "flopledger.conf"
# Debian puts nginx in /usr/sbin, which a non-root PATH often lacks.
NGINX = shutil.which("nginx", path=f"{os.environ.get('PATH', '')}:/usr/sbin:/sbin")
USER, PASSWORD = "alice", "correct horse battery staple"
PING = b"\x81\x04ping"  # the bytes sent through an upgraded connection, echoed back
WEBSOCKET_KEY = "dGhlIHNhbXBsZSBub25jZQ=="


@dataclass(frozen=True)
class Seen:
    """One request as a backend received it (header names lower-cased)."""

    method: str
    path: str
    version: str
    headers: dict[str, str]
    body: bytes


class _Recorder(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    backend: Backend

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = {name.lower(): value for name, value in self.headers.items()}
        self.backend.seen.append(Seen(self.command, self.path, self.request_version, headers, body))
        if headers.get("upgrade", "").lower() == "websocket":
            self.send_response(101)
            self.send_header("Upgrade", "websocket")
            self.send_header("Connection", "Upgrade")
            self.end_headers()
            self.wfile.write(self.rfile.read(len(PING)))  # echo: the tunnel carries both ways
            self.close_connection = True
            return
        reply = self.backend.name.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    do_GET = do_POST = _answer

    def log_message(self, format: str, *args: object) -> None:
        pass


@dataclass
class Backend:
    """A loopback HTTP server that answers its name and records each request."""

    name: str
    seen: list[Seen] = field(default_factory=list)

    def __post_init__(self) -> None:
        handler = type("Handler", (_Recorder,), {"backend": self})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@dataclass(frozen=True)
class Site:
    """One of the config's two server blocks, as the test reaches it."""

    name: str
    url: str
    port: int
    backend: Backend
    websocket_path: str
    cert: Path


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _replace(text: str, old: str, new: str) -> str:
    assert old in text, f"{SHIPPED.relative_to(REPO)} no longer has {old!r}: update this test"
    return text.replace(old, new)


def _directives(text: str) -> str:
    """The config without its comments."""
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())


def _site_config(
    ports: dict[str, int], backends: dict[str, Backend], cert: Path, key: Path, htpasswd: Path
) -> str:
    text = SHIPPED.read_text()
    swaps = [
        ("listen 443 ssl;", f"listen 127.0.0.1:{ports['dagster']} ssl;"),
        ("listen 8443 ssl;", f"listen 127.0.0.1:{ports['dashboards']} ssl;"),
        ("/etc/flopledger/tls/fullchain.pem", f'"{cert}"'),
        ("/etc/flopledger/tls/privkey.pem", f'"{key}"'),
        ("/etc/flopledger/htpasswd", f'"{htpasswd}"'),
        ("server 127.0.0.1:3000;", f"server 127.0.0.1:{backends['dagster'].port};"),
        ("server 127.0.0.1:8501;", f"server 127.0.0.1:{backends['dashboards'].port};"),
    ]
    for old, new in swaps:
        text = _replace(text, old, new)
    directives = _directives(text)
    # Nothing else the shipped file points at is left pointing outside the test.
    assert "/etc/" not in directives
    assert re.findall(r"listen\s+([^\s;]+)", directives) == [
        f"127.0.0.1:{ports['dagster']}",
        f"127.0.0.1:{ports['dashboards']}",
    ]
    return text


def _main_config(tmp: Path) -> str:
    """The minimal nginx.conf around the site file, everything nginx writes kept in tmp."""
    user = "user root;\n" if os.geteuid() == 0 else ""  # workers must read tmp (mode 0700)
    temp = "".join(
        f'    {kind}_temp_path "{tmp}/{kind}";\n'
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return (
        f"{user}daemon off;\nworker_processes 1;\n"
        f'pid "{tmp}/nginx.pid";\nerror_log "{tmp}/error.log" info;\n'
        "events {}\n"
        f'http {{\n    access_log "{tmp}/access.log";\n{temp}'
        f'    include "{tmp}/flopledger.conf";\n}}\n'
    )


def _openssl(*args: str, stdin: str | None = None) -> str:
    done = subprocess.run(
        ["openssl", *args], input=stdin, capture_output=True, text=True, timeout=HANG_S
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _wait_listening(process: subprocess.Popen[bytes], ports: list[int], log: Path) -> None:
    """Until nginx accepts on every port (the deadline only ends a hang)."""
    deadline = time.monotonic() + HANG_S
    waiting = list(ports)
    while waiting:
        assert process.poll() is None, f"nginx exited:\n{log.read_text()}"
        assert time.monotonic() < deadline, f"nginx never listened:\n{log.read_text()}"
        try:
            socket.create_connection(("127.0.0.1", waiting[0]), timeout=HANG_S).close()
            waiting.pop(0)
        except OSError:
            time.sleep(0.05)


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Site]]:
    if NGINX is None:
        pytest.skip("nginx is not installed (`make proxy` installs Debian's as root)")
    tmp = tmp_path_factory.mktemp("nginx")
    cert, key, htpasswd = tmp / "cert.pem", tmp / "key.pem", tmp / "htpasswd"
    _openssl(
        *("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"),
        *("-nodes", "-keyout", str(key), "-out", str(cert), "-days", "2"),
        *("-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"),
    )
    hashed = _openssl("passwd", "-apr1", "-stdin", stdin=PASSWORD).strip()
    htpasswd.write_text(f"{USER}:{hashed}\n")
    backends = {name: Backend(name) for name in ("dagster", "dashboards")}
    ports = {name: _free_port() for name in backends}
    (tmp / "flopledger.conf").write_text(_site_config(ports, backends, cert, key, htpasswd))
    (tmp / "nginx.conf").write_text(_main_config(tmp))
    command = [NGINX, "-p", str(tmp), "-c", str(tmp / "nginx.conf"), "-e", str(tmp / "error.log")]
    checked = subprocess.run([*command, "-t"], capture_output=True, text=True, timeout=HANG_S)
    assert checked.returncode == 0, checked.stderr
    with (tmp / "stderr.log").open("wb") as stderr:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr)
    try:
        _wait_listening(process, list(ports.values()), tmp / "error.log")
        yield {
            "dagster": Site(
                "dagster",
                f"https://127.0.0.1:{ports['dagster']}",
                ports["dagster"],
                backends["dagster"],
                "/graphql",
                cert,
            ),
            "dashboards": Site(
                "dashboards",
                f"https://127.0.0.1:{ports['dashboards']}",
                ports["dashboards"],
                backends["dashboards"],
                "/_stcore/stream",
                cert,
            ),
        }
    finally:
        process.terminate()  # SIGTERM: nginx's fast shutdown
        try:
            process.wait(timeout=HANG_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=HANG_S)
        for backend in backends.values():
            backend.stop()


@pytest.fixture(params=["dagster", "dashboards"])
def site(request: pytest.FixtureRequest, sites: dict[str, Site]) -> Site:
    chosen = sites[request.param]
    for each in sites.values():
        each.backend.seen.clear()
    return chosen


def _get(site: Site, path: str, **kwargs: Any) -> requests.Response:
    return requests.get(site.url + path, verify=str(site.cert), timeout=HANG_S, **kwargs)


def _post(site: Site, path: str, **kwargs: Any) -> requests.Response:
    return requests.post(site.url + path, verify=str(site.cert), timeout=HANG_S, **kwargs)


def _basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def _upgrade(site: Site, authorization: str | None) -> tuple[str, bytes]:
    """A websocket handshake over TLS on site's websocket path: the status line, and what came
    back through the connection after sending PING (b"" when it was not upgraded)."""
    head = [
        f"GET {site.websocket_path} HTTP/1.1",
        f"Host: 127.0.0.1:{site.port}",
        "Connection: Upgrade",
        "Upgrade: websocket",
        "Sec-WebSocket-Version: 13",
        f"Sec-WebSocket-Key: {WEBSOCKET_KEY}",
        f"Origin: https://127.0.0.1:{site.port}",
    ]
    if authorization:
        head.append(f"Authorization: {authorization}")
    context = ssl.create_default_context(cafile=str(site.cert))
    with (
        socket.create_connection(("127.0.0.1", site.port), timeout=HANG_S) as raw,
        context.wrap_socket(raw, server_hostname="127.0.0.1") as tls,
    ):
        tls.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
        received = b""
        while b"\r\n\r\n" not in received:
            chunk = tls.recv(4096)
            assert chunk, f"closed before the response's head: {received!r}"
            received += chunk
        response, rest = received.split(b"\r\n\r\n", 1)
        status = response.split(b"\r\n", 1)[0].decode()
        if " 101 " not in status:
            return status, b""
        tls.sendall(PING)
        echoed = rest
        while len(echoed) < len(PING):
            chunk = tls.recv(4096)
            if not chunk:
                break
            echoed += chunk
        return status, echoed


def test_every_server_block_asks_for_the_password_and_none_lets_anyone_past() -> None:
    directives = _directives(SHIPPED.read_text())
    blocks = directives.split("server {")[1:]
    assert len(blocks) == 2
    for block in blocks:
        assert 'auth_basic           "flopledger";' in block
        assert "auth_basic_user_file /etc/flopledger/htpasswd;" in block
    # No bypass: auth is never switched off, satisfied by an address, or skipped for a path.
    assert re.search(r"auth_basic\s+off|satisfy\s+any|\ballow\s", directives) is None
    assert directives.count("location ") == 2


@pytest.mark.parametrize("path", ["/", "/graphql", "/_stcore/stream", "/_stcore/health"])
def test_without_credentials_nothing_reaches_the_backend(site: Site, path: str) -> None:
    got = _get(site, path)
    posted = _post(site, path, json={"query": "{ version }"})
    for response in (got, posted):
        assert response.status_code == 401
        assert response.headers["WWW-Authenticate"] == 'Basic realm="flopledger"'
    assert site.backend.seen == []


@pytest.mark.parametrize(
    "credentials", [(USER, "wrong"), (USER, ""), ("mallory", PASSWORD), (USER.upper(), PASSWORD)]
)
def test_wrong_credentials_are_refused(site: Site, credentials: tuple[str, str]) -> None:
    assert _get(site, "/", auth=credentials).status_code == 401
    assert _post(site, "/graphql", auth=credentials, json={}).status_code == 401
    assert site.backend.seen == []


def test_plain_http_on_the_tls_port_is_refused(site: Site) -> None:
    response = requests.get(f"http://127.0.0.1:{site.port}/", auth=(USER, PASSWORD), timeout=HANG_S)
    assert response.status_code == 400
    assert site.backend.seen == []


def test_the_password_reaches_the_backend_with_the_user_and_the_scheme(
    site: Site, sites: dict[str, Site]
) -> None:
    spoofed = {"X-Forwarded-User": "mallory", "X-Forwarded-For": "10.6.6.6"}
    response = _get(site, "/runs/abc?tab=logs", auth=(USER, PASSWORD), headers=spoofed)
    assert response.status_code == 200
    assert response.text == site.name  # this block's backend, not the other's
    [seen] = site.backend.seen
    assert (seen.method, seen.path) == ("GET", "/runs/abc?tab=logs")
    assert seen.headers["x-forwarded-user"] == USER  # set by nginx, never the client's
    assert seen.headers["x-forwarded-proto"] == "https"
    assert seen.headers["x-forwarded-for"] == "127.0.0.1"
    assert seen.headers["x-real-ip"] == "127.0.0.1"
    assert seen.headers["host"] == seen.headers["x-forwarded-host"] == f"127.0.0.1:{site.port}"
    assert "authorization" not in seen.headers  # the password stops at the proxy
    assert [s for s in sites.values() if s is not site and s.backend.seen] == []


def test_a_graphql_post_is_passed_on_whole(site: Site) -> None:
    query = {"query": "mutation { launchRun { __typename } }", "variables": {"n": 1}}
    response = _post(site, "/graphql", auth=(USER, PASSWORD), json=query)
    assert response.status_code == 200
    [seen] = site.backend.seen
    assert (seen.method, seen.path) == ("POST", "/graphql")
    assert json.loads(seen.body) == query
    assert seen.headers["x-forwarded-user"] == USER


def test_a_websocket_upgrade_is_tunnelled_to_the_backend(site: Site) -> None:
    status, echoed = _upgrade(site, _basic(USER, PASSWORD))
    assert status.startswith("HTTP/1.1 101 ")
    assert echoed == PING  # bytes go both ways through the upgraded connection
    [seen] = site.backend.seen
    assert (seen.path, seen.version) == (site.websocket_path, "HTTP/1.1")  # 1.0 cannot upgrade
    assert seen.headers["upgrade"] == "websocket"
    assert seen.headers["connection"].lower() == "upgrade"
    assert seen.headers["sec-websocket-key"] == WEBSOCKET_KEY
    assert seen.headers["sec-websocket-version"] == "13"
    assert seen.headers["origin"] == f"https://127.0.0.1:{site.port}"
    assert seen.headers["host"] == f"127.0.0.1:{site.port}"  # Streamlit: Origin == Host
    assert seen.headers["x-forwarded-user"] == USER


@pytest.mark.parametrize("authorization", [None, "wrong"])
def test_a_websocket_upgrade_without_the_password_is_refused(
    site: Site, authorization: str | None
) -> None:
    header = None if authorization is None else _basic(USER, authorization)
    status, echoed = _upgrade(site, header)
    assert status.startswith("HTTP/1.1 401 ")
    assert echoed == b""
    assert site.backend.seen == []
