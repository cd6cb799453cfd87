"""The agent's own health: Prometheus `/metrics`, a liveness `/healthz`, systemd's watchdog.

The one door to prometheus-client. What is scraped is the agent's health (upload backlog,
late ticks, lost GPUs, spool bytes, last successful upload, ...) and each GPU's last reading
under dcgm-exporter's names (collectors/nvml/dcgm_fields.py), for the Grafana dashboards made
for dcgm-exporter; the GPU minutes stay in the spool, which a missed scrape cannot lose.

`/healthz` answers 200 while the sampling loop has ticked within `stale_after_s` (before
the first tick: since start), else 503: the Kubernetes liveness probe uses it. Its body is
`flopledger doctor --json`'s shape (`healthy`, and a check each: the loop, the GPUs, the
spool, the upload), so one monitor reads both. Every other path serves the metrics. Under systemd (`NOTIFY_SOCKET` set),
`SystemdNotifier` sends `READY=1` once and `WATCHDOG=1` from the ticks (every half
`WatchdogSec=`), so a loop that hangs is restarted after the unit's `WatchdogSec=`.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import CollectorRegistry, make_wsgi_app
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, UnknownMetricFamily
from prometheus_client.registry import Collector

log = logging.getLogger(__name__)

PREFIX = "flopledger_agent"


@dataclass(frozen=True)
class HealthSnapshot:
    """The agent's counters at one moment (what one scrape shows)."""

    gpus: int
    lost_gpus: int
    ticks: int
    late_ticks: int
    samples: int
    lost_samples: int
    rows: int
    files_written: int
    files_dropped: int
    spool_bytes: int
    upload_backlog: int
    uploaded: int
    upload_failures: int
    last_upload_epoch_s: float | None
    pod_lookup_errors: int
    uploading: bool = False  # an upload is configured


# (name, help, kind, snapshot field); kind "counter" gets the `_total` suffix.
METRICS = (
    ("gpus", "GPUs NVML reported at discovery.", "gauge", "gpus"),
    ("lost_gpus", "GPUs lost (off the bus) at the last tick.", "gauge", "lost_gpus"),
    ("ticks", "Sampling ticks taken.", "counter", "ticks"),
    ("late_ticks", "Ticks skipped because the loop ran late.", "counter", "late_ticks"),
    ("samples", "GPU readings taken.", "counter", "samples"),
    ("lost_samples", "GPU readings of a lost GPU.", "counter", "lost_samples"),
    ("rows", "gpu_samples rows (GPU minutes) written to the spool.", "counter", "rows"),
    ("spool_files_written", "Spool files written.", "counter", "files_written"),
    ("spool_files_dropped", "Spool files deleted by the size/age cap.", "counter", "files_dropped"),
    ("spool_bytes", "Bytes in the spool directory.", "gauge", "spool_bytes"),
    ("upload_backlog_files", "Closed spool files not yet uploaded.", "gauge", "upload_backlog"),
    ("uploaded_files", "Spool files uploaded and confirmed.", "counter", "uploaded"),
    ("upload_failures", "Failed upload attempts.", "counter", "upload_failures"),
    ("pod_lookup_errors", "Failed kubelet PodResources calls.", "counter", "pod_lookup_errors"),
)


class _AgentCollector(Collector):
    def __init__(self, snapshot: Callable[[], HealthSnapshot]) -> None:
        self.snapshot = snapshot

    def collect(self) -> Iterator[Any]:
        snap = self.snapshot()
        for name, doc, kind, attr in METRICS:
            family = CounterMetricFamily if kind == "counter" else GaugeMetricFamily
            yield family(f"{PREFIX}_{name}", doc, value=getattr(snap, attr))
        last = snap.last_upload_epoch_s
        yield GaugeMetricFamily(
            f"{PREFIX}_last_upload_success_timestamp_seconds",
            "Unix time of the last confirmed upload (0: none yet).",
            value=last if last is not None else 0.0,
        )


# (name, kind, help, [(labels, value)]) per field: what the GPU gauges callable returns.
GpuSeries = Iterable[tuple[str, str, str, list[tuple[dict[str, str], float]]]]


class _GpuCollector(Collector):
    """Each GPU's last reading under dcgm-exporter's names and labels. A dcgm-exporter
    counter is written untyped: prometheus-client would add `_total` to a counter's name,
    and the dashboards query the name as dcgm-exporter writes it."""

    def __init__(self, gpu_series: Callable[[], GpuSeries]) -> None:
        self.gpu_series = gpu_series

    def collect(self) -> Iterator[Any]:
        for name, kind, doc, values in self.gpu_series():
            if not values:
                continue
            keys = list(dict.fromkeys(k for labels, _ in values for k in labels))
            family_type = GaugeMetricFamily if kind == "gauge" else UnknownMetricFamily
            family = family_type(name, doc, labels=keys)
            for labels, value in values:
                family.add_metric([labels.get(k, "") for k in keys], value)
            yield family


class Liveness:
    """When the loop last ticked (real monotonic time, whatever clock the agent samples by)."""

    def __init__(self, stale_after_s: float, monotonic: Callable[[], float] = time.monotonic):
        self.stale_after_s = stale_after_s
        self._monotonic = monotonic
        self._started_s = monotonic()
        self._last_tick_s: float | None = None

    def ticked(self) -> None:
        self._last_tick_s = self._monotonic()

    def check(self) -> tuple[bool, str]:
        """(alive, one line saying why)."""
        since = self._last_tick_s if self._last_tick_s is not None else self._started_s
        age = self._monotonic() - since
        what = "last tick" if self._last_tick_s is not None else "start (no tick yet)"
        if age > self.stale_after_s:
            return False, f"stale: {age:.1f}s since {what} > {self.stale_after_s:.0f}s"
        return True, f"ok: {age:.1f}s since {what}"


def _upload_check(h: HealthSnapshot) -> tuple[str, str, str]:
    if not h.uploading:
        return "upload", "note", "off: the spool is read where it is"
    last = (
        time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(h.last_upload_epoch_s))
        if h.last_upload_epoch_s
        else "never"
    )
    text = f"{h.upload_backlog} file(s) waiting, {h.upload_failures} failed attempt(s), last success {last}"
    return "upload", "note" if h.upload_failures and h.upload_backlog else "ok", text


def health_report(alive: bool, why: str, snapshot: HealthSnapshot | None) -> dict[str, Any]:
    """What `/healthz` says, in `flopledger doctor --json`'s shape: `healthy` and one entry per
    check (`check`, `status` ok | note | fail, `detail`). Only the loop can fail (a liveness
    probe restarts the agent for it); lost GPUs, dropped spool files and a failing upload are
    notes, which a restart would not mend."""
    checks = [("loop", "ok" if alive else "fail", why)]
    if snapshot is not None:
        h = snapshot
        gpus = f"{h.gpus} GPU(s) at discovery, {h.lost_gpus} lost at the last tick"
        checks.append(("gpus", "note" if h.lost_gpus else "ok", gpus))
        spool = f"{h.spool_bytes} bytes, {h.files_dropped} file(s) deleted by the size/age cap"
        checks.append(("spool", "note" if h.files_dropped else "ok", spool))
        checks.append(_upload_check(h))
    return {
        "healthy": alive,
        "checks": [{"check": c, "status": s, "detail": d} for c, s, d in checks],
    }


class _ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        log.debug("health server: " + format, *args)


def parse_address(text: str) -> tuple[str, int]:
    """`HOST:PORT` or `:PORT` (all interfaces) -> (host, port); ValueError otherwise."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"not HOST:PORT: {text!r} (e.g. :9464 or 127.0.0.1:9464)")
    return host or "0.0.0.0", int(port)  # all interfaces: the probe and scrape come from outside


class HealthServer:
    """`/metrics` and `/healthz` on a background thread."""

    def __init__(
        self,
        address: tuple[str, int],
        snapshot: Callable[[], HealthSnapshot],
        liveness: Liveness,
        gpu_series: Callable[[], GpuSeries] | None = None,
    ) -> None:
        registry = CollectorRegistry()
        registry.register(_AgentCollector(snapshot))
        if gpu_series is not None:
            registry.register(_GpuCollector(gpu_series))
        metrics_app = make_wsgi_app(registry)
        self.liveness = liveness

        def app(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
            if environ.get("PATH_INFO") == "/healthz":
                alive, why = liveness.check()
                status = "200 OK" if alive else "503 Service Unavailable"
                body = json.dumps(health_report(alive, why, snapshot()), indent=1) + "\n"
                start_response(status, [("Content-Type", "application/json")])
                return [body.encode()]
            return metrics_app(environ, start_response)

        self._server = make_server(
            address[0], address[1], app, server_class=_ThreadingServer, handler_class=_QuietHandler
        )
        self.port = self._server.server_port
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="health-server", daemon=True
        )

    def start(self) -> None:
        self._thread.start()
        log.info("health: /metrics and /healthz on port %d", self.port)

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5.0)


class SystemdNotifier:
    """sd_notify(3) over `$NOTIFY_SOCKET`; does nothing when not run by systemd.

    `watchdog(now_s)` sends `WATCHDOG=1` at most every `watchdog_every_s` (default: half of
    systemd's `$WATCHDOG_USEC`, as sd_watchdog_enabled(3) advises). Sends never block: a
    full socket queue drops the message with a warning rather than stall sampling.
    """

    def __init__(self, address: str | None = None, watchdog_every_s: float | None = None) -> None:
        address = address if address is not None else os.environ.get("NOTIFY_SOCKET")
        self.address = "\0" + address[1:] if address and address.startswith("@") else address
        if watchdog_every_s is None:
            usec = os.environ.get("WATCHDOG_USEC", "")
            watchdog_every_s = int(usec) / 2e6 if usec.isdigit() else 0.0
        self.watchdog_every_s = watchdog_every_s
        self._next_watchdog_s: float | None = None

    def watchdog(self, now_s: float) -> None:
        """Tell systemd the loop is alive (throttled)."""
        if not self.address or (
            self._next_watchdog_s is not None and now_s < self._next_watchdog_s
        ):
            return
        self._next_watchdog_s = now_s + self.watchdog_every_s
        self.notify("WATCHDOG=1")

    @property
    def enabled(self) -> bool:
        return bool(self.address)

    def notify(self, state: str) -> None:
        if not self.address:
            return
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
                sock.setblocking(False)
                sock.connect(self.address)
                sock.sendall(state.encode())
        except OSError as exc:
            log.warning("sd_notify %s failed: %s", state, exc)
