"""Ship closed spool files to Cloud Storage; delete each locally only once confirmed.

Confirmed means: the upload returned, and the object now in the bucket has the MD5 of
the local file. A failure (network, permissions, missing bucket) is retried with
exponential backoff per file; the file stays in the spool meanwhile. Objects are named
`<prefix>/dt=<YYYY-MM-DD>/<file name>` so the daily loader lists one day.

The client is the real `google-cloud-storage` one, from collectors/gcs.py;
`STORAGE_EMULATOR_HOST` points it at an emulator (tests use gcp-storage-emulator on 127.0.0.1).
"""

from __future__ import annotations

import base64
import hashlib
import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flopledger.collectors.gcs import parse_gs_uri, storage_client

log = logging.getLogger(__name__)

_DATE_IN_NAME = re.compile(r"_(\d{4})(\d{2})(\d{2})T\d{6}Z_")


class UploadNotConfirmed(RuntimeError):
    """The bucket does not hold what was sent."""


def object_name(prefix: str, path: Path) -> str:
    """Where a spool file goes in the bucket."""
    match = _DATE_IN_NAME.search(path.name)
    day = f"dt={match.group(1)}-{match.group(2)}-{match.group(3)}/" if match else ""
    return f"{prefix}/{day}{path.name}" if prefix else f"{day}{path.name}"


def md5_base64(path: Path) -> str:
    """The file's MD5 as Cloud Storage reports it (base64)."""
    return base64.b64encode(hashlib.md5(path.read_bytes(), usedforsecurity=False).digest()).decode()


@dataclass
class _Retry:
    attempts: int = 0
    next_due_s: float = 0.0


class Uploader:
    """Uploads due files; per-file exponential backoff on failure."""

    def __init__(
        self,
        uri: str,
        client: Any | None = None,
        monotonic: Callable[[], float] = time.monotonic,
        backoff_base_s: float = 2.0,
        backoff_max_s: float = 300.0,
    ) -> None:
        self.bucket_name, self.prefix = parse_gs_uri(uri)
        self._client = client
        self._monotonic = monotonic
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self._retries: dict[Path, _Retry] = {}
        self.uploaded = 0
        self.failures = 0
        self.backlog = 0
        self.last_success_epoch_s: float | None = None  # wall clock of the last confirmed upload

    @property
    def bucket(self) -> Any:
        if self._client is None:
            self._client = storage_client()
        return self._client.bucket(self.bucket_name)

    def pump(self, files: list[Path]) -> int:
        """Try every file that is due; returns how many were uploaded and deleted."""
        self.backlog = len(files)
        now = self._monotonic()
        done = 0
        for path in files:
            retry = self._retries.get(path)
            if retry is not None and now < retry.next_due_s:
                continue
            if self._try(path, now):
                done += 1
        self.backlog = len(files) - done
        return done

    def _try(self, path: Path, now: float) -> bool:
        try:
            self.upload_one(path)
        except FileNotFoundError:
            self._retries.pop(path, None)  # dropped by the spool cap meanwhile
            return False
        except Exception as exc:  # any failure: keep the file, retry later
            self._schedule_retry(path, now, exc)
            return False
        self._retries.pop(path, None)
        self.uploaded += 1
        self.last_success_epoch_s = time.time()
        return True

    def _schedule_retry(self, path: Path, now: float, exc: Exception) -> None:
        retry = self._retries.setdefault(path, _Retry())
        retry.attempts += 1
        delay = min(self.backoff_max_s, self.backoff_base_s * 2 ** (retry.attempts - 1))
        retry.next_due_s = now + delay
        self.failures += 1
        log.warning(
            "upload of %s failed (attempt %d, retry in %.0fs): %s",
            path.name,
            retry.attempts,
            delay,
            exc,
        )

    def upload_one(self, path: Path) -> None:
        """Upload, confirm by MD5, then delete locally. Raises on any failure."""
        expected = md5_base64(path)
        name = object_name(self.prefix, path)
        bucket = self.bucket
        bucket.blob(name).upload_from_filename(str(path), timeout=60)
        remote = bucket.get_blob(name, timeout=60)
        if remote is None or remote.md5_hash != expected:
            got = None if remote is None else remote.md5_hash
            raise UploadNotConfirmed(f"gs://{self.bucket_name}/{name}: md5 {got} != {expected}")
        path.unlink()
        log.info("uploaded %s to gs://%s/%s", path.name, self.bucket_name, name)


class UploadWorker(threading.Thread):
    """Runs `Uploader.pump` on the spool's closed files every `period_s`, off the sampling loop."""

    def __init__(
        self, uploader: Uploader, files: Callable[[], list[Path]], period_s: float = 5.0
    ) -> None:
        super().__init__(name="spool-upload", daemon=True)
        self.uploader = uploader
        self.files = files
        self.period_s = period_s
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                self.uploader.pump(self.files())
            except Exception:  # never let the thread die silently
                log.exception("upload worker: unexpected error")
            self.stopping.wait(self.period_s)

    def stop(self, timeout_s: float = 10.0) -> None:
        self.stopping.set()
        self.join(timeout_s)
