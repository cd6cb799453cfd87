"""One probe result per (device, dtype, shape) and its JSONL form (the probe_results schema).

No JAX here. Field order is the order of models/raw/probe_results.sql.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TextIO


@dataclass(frozen=True)
class ProbeResult:
    result_id: str  # stable: see `result_id`
    measured_at: datetime  # naive, UTC: when this shape's probe started
    node: str
    device_index: int
    device_kind: str  # what JAX calls the device
    accelerator_type: str | None  # canonical name shared with billing; None for CPUs
    backend: str  # cpu, gpu, tpu
    dtype: str
    m: int
    n: int
    k: int
    iterations: int | None  # timed calls
    achieved_tflops: float | None  # best sample; None unless verified
    median_tflops: float | None
    spread_pct: float | None  # (slowest - fastest) / fastest sample
    peak_tflops_spec: float | None
    peak_source: str | None
    efficiency: float | None  # achieved / spec peak, a fraction
    window_s: float | None  # wall time of the timed samples
    energy_j: float | None  # NVML energy over that window
    tflops_per_w: float | None  # FLOPs done in the window / energy (TFLOP per joule)
    verified: bool
    verify_error_ratio: float | None  # worst |error| / tolerance (< 1 passes)
    failure: str | None  # why it failed (wrong answer or error); None when verified
    jax_version: str | None
    probe_version: str

    def to_json(self) -> str:
        """One JSONL line; measured_at as ISO 8601 with a Z."""
        record = dataclasses.asdict(self)
        record["measured_at"] = self.measured_at.isoformat(timespec="microseconds") + "Z"
        return json.dumps(record, allow_nan=False)


def result_id(
    node: str, measured_at: datetime, device_index: int, dtype: str, m: int, n: int, k: int
) -> str:
    """Hash of what identifies one measurement: the same line ingested twice is one row."""
    key = "\x1f".join(str(v) for v in (node, measured_at.isoformat(), device_index, dtype, m, n, k))
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def write_jsonl(results: Iterable[ProbeResult], out: TextIO) -> int:
    """Write results as JSONL; returns the number of lines."""
    count = 0
    for result in results:
        out.write(result.to_json() + "\n")
        count += 1
    out.flush()
    return count


def append_jsonl(results: Iterable[ProbeResult], path: Path) -> int:
    """Append results to a JSONL file (created with its folder if missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        return write_jsonl(results, out)
