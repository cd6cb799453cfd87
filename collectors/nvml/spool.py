"""Spool: Parquet files written atomically, rotated and capped.

Every write goes to a hidden temp file in the same directory (`.NAME.RANDOM.tmp`), is
fsynced, renamed over the final name and the directory fsynced: a file under a final
name is always complete, whatever kills the process, and readers skip dot-files.

The agent keeps one *open* file per rotation window (default 10 minutes): each finished
minute rewrites it (atomically) with every row of the window so far, so a kill -9 loses
at most the minute in progress. A window closes when it is `rotate_s` old or its file
reaches `max_file_bytes`; closed files are what the uploader ships. The cap deletes
closed files older than `max_age_s`, then the oldest while the spool is over
`max_total_bytes`, logging what it dropped.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from flopledger.collectors.nvml.schema import GPU_SAMPLES_SCHEMA, rows_to_table

log = logging.getLogger(__name__)

PREFIX = "gpu_samples"
SUFFIX = ".parquet"
_UNSAFE = re.compile(r"[^A-Za-z0-9.-]+")


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_parquet_atomic(table: pa.Table, path: Path) -> Path:
    """Write `table` to `path` so that `path` is never seen half-written."""
    path = Path(path)
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        with open(temp, "wb") as handle:
            pq.write_table(table, handle, compression="zstd")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
        raise
    _fsync_dir(path.parent)
    return path


def safe_name(text: str) -> str:
    """`text` made safe for a file name."""
    return _UNSAFE.sub("_", text).strip("_") or "node"


def spool_file_name(node: str, minute: datetime, token: str) -> str:
    """`gpu_samples_<node>_<YYYYmmddTHHMMSS>Z_<token>.parquet` (minute in UTC)."""
    return f"{PREFIX}_{safe_name(node)}_{minute:%Y%m%dT%H%M%S}Z_{token}{SUFFIX}"


def write_spool_file(
    directory: str | Path, rows_or_table: pa.Table | Iterable[Mapping[str, Any]]
) -> Path:
    """Write per-minute rows (or a `gpu_samples` table) as one spool file, atomically.

    For the fleet simulator. The name is deterministic: first node and minute plus a
    hash of the content, so writing the same rows twice gives the same file.
    """
    table = rows_or_table if isinstance(rows_or_table, pa.Table) else rows_to_table(rows_or_table)
    table = table.select(list(GPU_SAMPLES_SCHEMA.names)).cast(GPU_SAMPLES_SCHEMA)
    if table.num_rows == 0:
        raise ValueError("write_spool_file: no rows")
    digest = hashlib.sha256()
    for sid in sorted(table.column("sample_id").to_pylist()):
        digest.update(sid.encode())
    first = table.sort_by([("minute", "ascending")]).slice(0, 1).to_pylist()[0]
    name = spool_file_name(first["node"], first["minute"], digest.hexdigest()[:12])
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    return write_parquet_atomic(table, directory / name)


def is_spool_file(path: Path) -> bool:
    """A finished spool file (not a hidden temp file)."""
    return path.name.endswith(SUFFIX) and not path.name.startswith(".")


@dataclass(frozen=True)
class SpoolLimits:
    """Rotation and cap."""

    rotate_s: int = 600
    max_file_bytes: int = 8 * 2**20
    max_total_bytes: int = 1 * 2**30
    max_age_s: int = 7 * 86400


class Spool:
    """The agent's spool directory: one open window file, the rest closed."""

    def __init__(self, directory: Path, node: str, limits: SpoolLimits | None = None) -> None:
        self.directory = Path(directory)
        self.node = node
        self.limits = limits or SpoolLimits()
        self.files_written = 0
        self.files_dropped = 0
        self._rows: list[dict[str, Any]] = []
        self._window_start: datetime | None = None
        self._current: Path | None = None
        self.directory.mkdir(parents=True, exist_ok=True)
        self.remove_temp_files()
        rows_to_table([])  # pyarrow's first conversion imports pandas (~1 s): pay it now

    def remove_temp_files(self) -> int:
        """Delete temp files a killed writer left behind (never under a final name)."""
        stale = [p for p in self.directory.glob(".*.tmp") if p.is_file()]
        for path in stale:
            path.unlink(missing_ok=True)
        if stale:
            log.info("spool: removed %d temp file(s) left by an earlier run", len(stale))
        return len(stale)

    def append(self, rows: list[dict[str, Any]]) -> None:
        """Add finished-minute rows: rewrite the open window file with them."""
        if not rows:
            return
        first_minute: datetime = rows[0]["minute"]
        if self._window_due(first_minute):
            self.rotate()
        if self._current is None:
            self._window_start = first_minute
            self._current = self.directory / spool_file_name(
                self.node, first_minute, secrets.token_hex(4)
            )
        self._rows.extend(rows)
        write_parquet_atomic(rows_to_table(self._rows), self._current)
        self.files_written += 1

    def _window_due(self, minute: datetime) -> bool:
        if self._current is None or self._window_start is None:
            return False
        too_old = (minute - self._window_start).total_seconds() >= self.limits.rotate_s
        too_big = self._current.stat().st_size >= self.limits.max_file_bytes
        return too_old or too_big

    def rotate(self) -> None:
        """Close the open window: its file becomes a closed file, ready to ship."""
        self._rows, self._current, self._window_start = [], None, None

    def closed_files(self) -> list[Path]:
        """Finished spool files no longer being written, oldest name first."""
        return sorted(
            p for p in self.directory.iterdir() if is_spool_file(p) and p != self._current
        )

    def total_bytes(self) -> int:
        """Bytes of every spool file."""
        return sum(_size(p) for p in self.directory.iterdir() if is_spool_file(p))

    def enforce_cap(self, now_epoch_s: float) -> list[Path]:
        """Drop closed files past the age limit, then the oldest while over the size cap."""
        dropped = [
            p for p in self.closed_files() if now_epoch_s - _mtime(p) > self.limits.max_age_s
        ]
        total = self.total_bytes() - sum(_size(p) for p in dropped)
        for path in self.closed_files():
            if total <= self.limits.max_total_bytes:
                break
            if path not in dropped:
                dropped.append(path)
                total -= _size(path)
        for path in dropped:
            path.unlink(missing_ok=True)
        if dropped:
            self.files_dropped += len(dropped)
            log.warning(
                "spool: cap dropped %d file(s): %s", len(dropped), [p.name for p in dropped]
            )
        return dropped


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return float("inf")
