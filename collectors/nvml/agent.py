"""The agent loop: sample every interval, close finished minutes, spool, ship, report health.

Interval timing comes from a monotonic clock (missed ticks are skipped, not bunched);
minutes and timestamps from the UTC wall clock. Both come from a `Clock`, so tests run
simulated minutes in no time. `stop` (set by SIGTERM/SIGINT) ends the loop after the
current tick: every finished minute is then written, the minute in progress is dropped
(its row would collide with the next run's row for the same minute).

On Kubernetes a `PodResolver` says which pod holds each GPU (kubelet PodResources API);
each minute's row carries that pod. The agent's own health is served as Prometheus
`/metrics` and a liveness `/healthz` (`health_address`), and told to systemd's watchdog.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Protocol

from flopledger.collectors.nvml.aggregate import MinuteAggregator, minute_start
from flopledger.collectors.nvml.dcgm_fields import GpuIdentity, gpu_labels, series
from flopledger.collectors.nvml.health import (
    HealthServer,
    HealthSnapshot,
    Liveness,
    SystemdNotifier,
)
from flopledger.collectors.nvml.labels import NodeLabels
from flopledger.collectors.nvml.nvml import Nvml
from flopledger.collectors.nvml.podresources import PodRef, PodResolver
from flopledger.collectors.nvml.sampler import GpuSampler, Reading
from flopledger.collectors.nvml.spool import Spool, SpoolLimits
from flopledger.collectors.nvml.upload import Uploader, UploadWorker

log = logging.getLogger(__name__)


class Clock(Protocol):
    """Where the agent gets time from."""

    def monotonic(self) -> float: ...

    def time(self) -> float: ...

    def wait(self, seconds: float, stop: threading.Event) -> None: ...


class SystemClock:
    """Real time: `time.monotonic`, `time.time` (UTC epoch), and an interruptible sleep."""

    def monotonic(self) -> float:
        return time.monotonic()

    def time(self) -> float:
        return time.time()

    def wait(self, seconds: float, stop: threading.Event) -> None:
        stop.wait(max(0.0, seconds))


@dataclass(frozen=True)
class AgentConfig:
    """What `flopledger agent` was asked to do."""

    spool_dir: Path
    labels: NodeLabels
    interval_s: float = 1.0
    duration_s: float | None = None
    upload_uri: str | None = None
    minute_s: int = 60  # test-only override: a shorter "minute" for quick subprocess tests
    limits: SpoolLimits = SpoolLimits()
    health_every_s: float = 60.0
    health_address: tuple[str, int] | None = None  # serve /metrics and /healthz here
    stale_after_s: float = 60.0  # /healthz fails when no tick for this long


@dataclass
class Health:
    """Counters the agent logs about itself."""

    ticks: int = 0
    samples: int = 0
    lost_samples: int = 0
    rows: int = 0
    late_ticks: int = 0
    lost_gpus: int = 0  # at the last tick


class Agent:
    """One node's agent: NVML in, spool files out."""

    def __init__(
        self,
        config: AgentConfig,
        nvml: Nvml,
        clock: Clock | None = None,
        uploader: Uploader | None = None,
        pods: PodResolver | None = None,
        notifier: SystemdNotifier | None = None,
    ) -> None:
        self.config = config
        self.clock = clock or SystemClock()
        self.sampler = GpuSampler(nvml)
        self.aggregator = MinuteAggregator(config.labels)
        self.spool = Spool(config.spool_dir, config.labels.node, config.limits)
        self.uploader = uploader
        self.health = Health()
        self.pods = pods
        self.notifier = notifier or SystemdNotifier()
        self.liveness = Liveness(config.stale_after_s)
        self.health_server: HealthServer | None = None
        self._worker: UploadWorker | None = None
        self._next_health_s = 0.0
        self._last: tuple[list[Reading], dict[int, PodRef | None] | None] = ([], None)

    def run(self, stop: threading.Event) -> int:
        """Sample until `stop` is set or the duration is over; returns an exit code."""
        self._start_health_server()
        try:
            self.sampler.discover()
        except BaseException:
            if self.health_server is not None:
                self.health_server.stop()
            raise
        self._start_upload()
        if self.pods is not None:
            self.pods.start()
        self.notifier.notify("READY=1")
        start_s = self.clock.monotonic()
        next_tick_s = start_s
        self._next_health_s = start_s + self.config.health_every_s
        try:
            while not stop.is_set() and not self._duration_over(start_s):
                self.tick()
                next_tick_s = self._next_tick(next_tick_s)
                self.clock.wait(next_tick_s - self.clock.monotonic(), stop)
        finally:
            self.finish()
        return 0

    def _duration_over(self, start_s: float) -> bool:
        duration = self.config.duration_s
        return duration is not None and self.clock.monotonic() - start_s >= duration

    def _next_tick(self, previous_s: float) -> float:
        """The next tick on the interval grid; skips ticks already missed."""
        now_s = self.clock.monotonic()
        interval = self.config.interval_s
        next_s = previous_s + interval
        if next_s < now_s:
            missed = int((now_s - next_s) // interval) + 1
            self.health.late_ticks += missed
            next_s += missed * interval
        return next_s

    def tick(self) -> None:
        """One sample of every GPU, and whatever minutes that finished."""
        epoch_s = self.clock.time()
        minute = minute_start(epoch_s, self.config.minute_s)
        readings = self.sampler.sample()
        pods = self._pods()
        self.aggregator.add(minute, readings, pods)
        self._last = (readings, pods)  # what /metrics shows of each GPU
        self.health.ticks += 1
        self.health.samples += len(readings)
        self.health.lost_gpus = sum(r.status == "lost" for r in readings)
        self.health.lost_samples += self.health.lost_gpus
        self._write(self.aggregator.close(before=minute))
        if self.clock.monotonic() >= self._next_health_s:
            self.log_health()
            self._next_health_s += self.config.health_every_s
        self.liveness.ticked()
        self.notifier.watchdog(self.clock.monotonic())

    def _pods(self) -> dict[int, PodRef | None] | None:
        if self.pods is None:
            return None
        self.pods.refresh(self.clock.monotonic())
        gpus = self.sampler.gpus
        return self.pods.pods(
            [(g.index, g.uuid) for g in gpus] + [(g.index, m) for g in gpus for m in g.mig_uuids],
            minors={g.index: g.minor for g in gpus if g.minor is not None},
        )

    def _write(self, rows: list[dict[str, object]]) -> None:
        if not rows:
            return
        self.spool.append(rows)
        self.health.rows += len(rows)
        self.spool.enforce_cap(self.clock.time())

    def finish(self) -> None:
        """Write every finished minute, close the window, stop shipping, release NVML."""
        minute_now = minute_start(self.clock.time(), self.config.minute_s)
        self._write(self.aggregator.close(before=minute_now))
        dropped = self.aggregator.pending_minutes()
        self.spool.rotate()
        if self._worker is not None:
            self._worker.stop()
        if self.pods is not None:
            self.pods.stop()
        self.log_health()
        self.sampler.close()
        if self.health_server is not None:
            self.health_server.stop()
        self.notifier.notify("STOPPING=1")
        log.info("agent stopped; minute(s) in progress not written: %s", dropped)

    def _start_upload(self) -> None:
        if self.uploader is None:
            return
        self._worker = UploadWorker(self.uploader, self.spool.closed_files)
        self._worker.start()

    def _start_health_server(self) -> None:
        if self.config.health_address is None:
            return
        self.health_server = HealthServer(
            self.config.health_address, self.snapshot, self.liveness, self.gpu_series
        )
        self.health_server.start()

    def gpu_series(self) -> list[tuple[str, str, str, list[tuple[dict[str, str], float]]]]:
        """Each GPU's last reading under dcgm-exporter's names and labels (dcgm_fields.py)."""
        readings, pods = self._last
        labels = {}
        for gpu in self.sampler.gpus:
            identity = GpuIdentity(gpu.index, gpu.uuid, gpu.pci_bus_id, gpu.minor, gpu.name)
            pod = (pods or {}).get(gpu.index)
            owner = (pod.namespace, pod.name) if pod is not None else None
            labels[gpu.index] = gpu_labels(identity, self.config.labels.node, owner)
        return [(f.name, f.kind, f.help, values) for f, values in series(readings, labels)]

    def snapshot(self) -> HealthSnapshot:
        """The agent's counters now (what /metrics shows)."""
        h, up = self.health, self.uploader
        return HealthSnapshot(
            gpus=len(self.sampler.gpus),
            lost_gpus=h.lost_gpus,
            ticks=h.ticks,
            late_ticks=h.late_ticks,
            samples=h.samples,
            lost_samples=h.lost_samples,
            rows=h.rows,
            files_written=self.spool.files_written,
            files_dropped=self.spool.files_dropped,
            spool_bytes=self.spool.total_bytes(),
            upload_backlog=up.backlog if up else 0,  # no upload: nothing waits for one
            uploaded=up.uploaded if up else 0,
            upload_failures=up.failures if up else 0,
            last_upload_epoch_s=up.last_success_epoch_s if up else None,
            pod_lookup_errors=self.pods.errors if self.pods else 0,
            uploading=up is not None,
        )

    def log_health(self) -> None:
        """One line about the agent itself."""
        h = self.health
        backlog = self.uploader.backlog if self.uploader else 0
        log.info(
            "agent health: gpus=%d ticks=%d samples=%d lost=%d rows=%d files_written=%d "
            "files_dropped=%d late_ticks=%d upload_backlog=%d uploaded=%d spool_bytes=%d",
            len(self.sampler.gpus),
            h.ticks,
            h.samples,
            h.lost_samples,
            h.rows,
            self.spool.files_written,
            self.spool.files_dropped,
            h.late_ticks,
            backlog,
            self.uploader.uploaded if self.uploader else 0,
            self.spool.total_bytes(),
        )


def stop_on_signals(stop: threading.Event) -> None:
    """SIGTERM and SIGINT set `stop` (the loop then flushes and exits cleanly)."""

    def handler(signum: int, frame: FrameType | None) -> None:
        log.info("signal %d: flushing finished minutes and stopping", signum)
        stop.set()

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)
