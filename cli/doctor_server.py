"""`flopledger doctor --serve HOST:PORT`: what the doctor says, over HTTP, for a monitor.

GET `/healthz` answers `flopledger doctor --json`'s object (the agent's `/healthz` has the
same shape): 200 when healthy, 503 when not, and 503 with `"starting"` before the first
checks are done. The checks run on a thread of their own every `every_s`, never for a
request: a probe gets the last report at once, however slow the checks (a bucket listed, the
instance opened), and a flood of probes runs no more of them. Other paths: 404. Bind it to
127.0.0.1 (the report names paths and hosts): a monitor on the machine reads it, nothing
from outside.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

log = logging.getLogger(__name__)

Report = dict[str, Any]  # {"healthy": bool, "checks": [{"check", "status", "detail"}]}
STARTING: Report = {
    "healthy": False,
    "checks": [{"check": "doctor", "status": "fail", "detail": "starting: no checks run yet"}],
}


class DoctorServer:
    def __init__(
        self, address: tuple[str, int], report: Callable[[], Report], every_s: float = 60.0
    ) -> None:
        self._report, self.every_s = report, every_s
        self._last: Report = STARTING
        self._lock = threading.Lock()
        self._stop = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                if self.path.split("?")[0] != "/healthz":
                    self.send_error(404)
                    return
                last = server.last()
                body = (json.dumps(last, indent=1) + "\n").encode()
                self.send_response(200 if last["healthy"] else 503)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                log.debug("doctor server: " + format, *args)

        self._http = ThreadingHTTPServer(address, Handler)
        self._http.daemon_threads = True
        self.port = self._http.server_address[1]
        self._threads = [
            threading.Thread(target=self._http.serve_forever, name="doctor-http", daemon=True),
            threading.Thread(target=self._checking, name="doctor-checks", daemon=True),
        ]

    def last(self) -> Report:
        with self._lock:
            return self._last

    def refresh(self) -> Report:
        """Run the checks now and keep their report (a check that raises is a failed check)."""
        try:
            report = self._report()
        except Exception as exc:  # noqa: BLE001 - said in the report, never a dead server
            text = f"{exc.__class__.__name__}: {str(exc).strip()[:300]}"
            report = {
                "healthy": False,
                "checks": [{"check": "doctor", "status": "fail", "detail": text}],
            }
        with self._lock:
            self._last = report
        return report

    def _checking(self) -> None:
        while not self._stop.is_set():
            self.refresh()
            self._stop.wait(self.every_s)

    def start(self, check: bool = True) -> None:
        """Serve; with `check`, also run the checks every `every_s` (a test refreshes itself)."""
        for thread in self._threads if check else self._threads[:1]:
            thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._http.shutdown()
        self._http.server_close()
        for thread in self._threads:
            if thread.is_alive():
                thread.join(5.0)
