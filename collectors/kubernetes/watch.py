"""The pod watcher: list, then watch, writing pod lifecycle records to files crash-safely.

Like the agent's spool (collectors/nvml/spool.py), every file is written to a hidden temp file
in the same folder, fsynced, renamed to its final name and the folder fsynced: a file under a
final name is always complete, whatever kills the process, and readers skip dot-files. Each
flush writes a new file, `pods-<UTC stamp>-<n>.jsonl`, so names sort in the order written and
nothing is ever rewritten; the reader keeps the newest record of each pod.

The loop is the informer's: list every pod (written as LISTED records; a pod known before
that the list no longer has was deleted unseen, and is written as DELETED), then watch from
the list's resourceVersion. A watch that ends is resumed from the last version seen; a
410 Gone (the version is too old) lists again.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from flopledger.collectors.kubernetes.client import Gone, KubernetesError
from flopledger.collectors.kubernetes.pods import NotAPod, pod_record
from flopledger.collectors.kubernetes.read import latest_pods

log = logging.getLogger(__name__)

Lister = Callable[[], tuple[list[dict[str, Any]], str]]
Watcher = Callable[[str], Iterator[tuple[str, dict[str, Any]]]]


def utc_now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def stamp(moment: datetime) -> str:
    """A time as the records carry it: RFC 3339 in UTC with microseconds."""
    return f"{moment:%Y-%m-%dT%H:%M:%S.%f}Z"


def write_text_atomic(path: Path, text: str) -> Path:
    """`text` to `path` via a fsynced dot-file renamed over it; the folder fsynced too."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        with temp.open("w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    finally:
        if temp.exists():
            temp.unlink()
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    return path


@dataclass
class WatchStats:
    lists: int = 0
    watches: int = 0
    gone: int = 0
    events: int = 0
    records: int = 0
    files: list[Path] = field(default_factory=list)
    refused: int = 0  # objects that were not Pods (logged)


class PodWatcher:
    """Lists and watches pods through `lister` / `watcher` (collectors/kubernetes/client.py
    bound to one API and namespace) and writes records under `out_dir`."""

    def __init__(
        self,
        lister: Lister,
        watcher: Watcher,
        out_dir: Path,
        *,
        clock: Callable[[], datetime] = utc_now,
        flush_every: int = 200,
        flush_every_s: float = 10.0,
        progress: Callable[[str], None] | None = None,
        retries: int = 0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.lister, self.watcher, self.out_dir = lister, watcher, Path(out_dir)
        self.clock, self.flush_every, self.progress = clock, flush_every, progress
        self.flush_every_s = flush_every_s
        self._flushed_at = time.monotonic()
        self.retries, self.sleep = retries, sleep
        self.pending: list[dict[str, Any]] = []
        # uid -> last record of pods not yet ended or deleted; a restart starts from what the
        # earlier files left live, so its first list finds the pods that vanished meanwhile.
        self.live: dict[str, dict[str, Any]] = self._left_live()
        self.stats = WatchStats()
        self._sequence = 0

    def _left_live(self) -> dict[str, dict[str, Any]]:
        files = sorted(self.out_dir.glob("pods-*.jsonl")) if self.out_dir.is_dir() else []
        newest, _ = latest_pods(files, [])
        return {
            uid: seen.record
            for uid, seen in newest.items()
            if seen.record.get("phase") not in ("Succeeded", "Failed")
            and not seen.record.get("deleted_at")
        }

    def _record(self, pod: dict[str, Any], event: str) -> None:
        try:
            record = pod_record(pod, event, stamp(self.clock()))
        except (NotAPod, TypeError, ValueError, AttributeError) as exc:
            self.stats.refused += 1
            log.warning("kube-watch: skipped an object: %s", exc)
            return
        self.pending.append(record)
        if event == "DELETED":
            self.live.pop(record["uid"], None)
        else:
            self.live[record["uid"]] = record

    def flush(self) -> Path | None:
        """Write what is pending as one new file (nothing pending: no file)."""
        if not self.pending:
            return None
        self._sequence += 1
        name = f"pods-{self.clock():%Y%m%dT%H%M%S%fZ}-{self._sequence:06d}.jsonl"
        text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in self.pending)
        path = write_text_atomic(self.out_dir / name, text)
        self.stats.records += len(self.pending)
        self.stats.files.append(path)
        if self.progress:
            self.progress(
                f"{path.name}: {len(self.pending)} pod records ({len(self.live)} pods live)"
            )
        self.pending = []
        self._flushed_at = time.monotonic()
        return path

    def relist(self) -> str:
        """List every pod; pods known before and missing now were deleted unseen."""
        pods, version = self.lister()
        self.stats.lists += 1
        before = dict(self.live)
        self.live = {}
        for pod in pods:
            self._record(pod, "LISTED")
        now = stamp(self.clock())
        for uid, record in before.items():
            if uid not in self.live:
                gone = {**record, "event": "DELETED", "observed_at": now}
                gone["deleted_at"] = record.get("deleted_at") or now
                self.pending.append(gone)
        self.flush()
        return version

    def run(
        self, should_stop: Callable[[], bool] = lambda: False, max_watches: int | None = None
    ) -> WatchStats:
        """List, then watch until `should_stop()` (checked after each event and watch) or
        `max_watches` watch requests; Gone lists again. An API error is retried `retries` times
        in a row (waiting 2, 4, ... 60 s, then listing again) before it is raised. Pending
        records are flushed on the way out, whatever stops it."""
        failures = 0
        try:
            version = self.relist()
            while not should_stop() and (max_watches is None or self.stats.watches < max_watches):
                self.stats.watches += 1
                try:
                    for kind, obj in self.watcher(version):
                        self.stats.events += 1
                        meta = obj.get("metadata")
                        found = meta.get("resourceVersion") if isinstance(meta, dict) else None
                        version = str(found) if found else version
                        if kind in ("ADDED", "MODIFIED", "DELETED"):
                            self._record(obj, kind)
                        due = time.monotonic() - self._flushed_at >= self.flush_every_s
                        if len(self.pending) >= self.flush_every or (self.pending and due):
                            self.flush()
                        if should_stop():
                            break
                except Gone:
                    self.stats.gone += 1
                    self.flush()
                    if self.progress:
                        self.progress("watch expired (410 Gone): listing again")
                    version = self.relist()
                    continue
                except KubernetesError as exc:
                    failures += 1
                    if failures > self.retries:
                        raise
                    self.flush()
                    wait = min(60.0, 2.0**failures)
                    if self.progress:
                        self.progress(f"{exc}; listing again in {wait:.0f} s")
                    self.sleep(wait)
                    version = self.relist()
                    continue
                failures = 0
                self.flush()
        finally:
            self.flush()
        return self.stats
