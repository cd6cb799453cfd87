"""Readings -> one `gpu_samples` row per GPU per minute.

Means and maxima over the minute's good readings; running counters (energy, ECC)
become the sum of reading-to-reading deltas, each delta belonging to the minute of the
later reading. A counter that goes down was reset (driver reload, GPU reset): it
restarted from zero, so the delta is its new value, never negative.

The pod columns name the pod that held the GPU in most of the minute's readings (a pod
swap mid-minute goes to the longer holder); none off Kubernetes.

Row status: `lost` if the GPU was lost at any reading in the minute; else
`not_supported` if a core counter (GPU utilisation, memory used, power, energy) gave
nothing all minute; else `ok`. GPM columns being null (pre-Hopper, old driver) is normal
and does not change the status.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from flopledger.collectors.nvml.labels import NodeLabels
from flopledger.collectors.nvml.podresources import PodRef
from flopledger.collectors.nvml.sampler import Reading
from flopledger.collectors.nvml.schema import gpu_key, sample_id

CORE_FIELDS = ("util_gpu_pct", "mem_used_bytes", "power_w", "energy_mj")
MEAN_FIELDS = (
    "util_gpu_pct",
    "util_mem_pct",
    "power_w",
    "sm_clock_mhz",
    "mem_clock_mhz",
    "tensor_active_pct",
    "sm_active_pct",
    "sm_occupancy_pct",
    "dram_bw_util_pct",
)


def minute_start(epoch_s: float, minute_s: int = 60) -> datetime:
    """Start of the (UTC, naive) minute holding `epoch_s`; `minute_s` is 60 outside tests."""
    start = int(epoch_s // minute_s) * minute_s
    return datetime.fromtimestamp(start, UTC).replace(tzinfo=None)


def counter_delta(previous: int, current: int) -> int:
    """Growth of a running counter; after a reset it restarted at zero."""
    return current - previous if current >= previous else current


@dataclass
class _GpuMinute:
    readings: list[Reading] = field(default_factory=list)
    energy_mj: int | None = None
    ecc_errors: int | None = None
    xid_errors: int | None = None
    pods: Counter[PodRef | None] = field(default_factory=Counter)


def _mean(values: Iterable[Any]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def _max(values: Iterable[Any]) -> Any:
    known = [v for v in values if v is not None]
    return max(known) if known else None


def _add(total: int | None, value: int) -> int:
    return value if total is None else total + value


class MinuteAggregator:
    """Buckets readings by minute and GPU; `close` emits the rows of finished minutes."""

    def __init__(self, labels: NodeLabels) -> None:
        self.labels = labels
        self._minutes: dict[datetime, dict[int, _GpuMinute]] = {}
        self._last_energy_mj: dict[int, int] = {}
        self._last_ecc: dict[int, int] = {}

    def add(
        self,
        minute: datetime,
        readings: Iterable[Reading],
        pods: Mapping[int, PodRef | None] | None = None,
    ) -> None:
        """File readings taken during `minute`; `pods`: GPU index -> the pod holding it."""
        bucket = self._minutes.setdefault(minute, {})
        for reading in readings:
            acc = bucket.setdefault(reading.gpu_index, _GpuMinute())
            acc.readings.append(reading)
            acc.pods[(pods or {}).get(reading.gpu_index)] += 1
            self._count(reading, acc)

    def _count(self, r: Reading, acc: _GpuMinute) -> None:
        if r.energy_mj is not None:
            previous = self._last_energy_mj.get(r.gpu_index)
            if previous is not None:
                acc.energy_mj = _add(acc.energy_mj, counter_delta(previous, r.energy_mj))
            self._last_energy_mj[r.gpu_index] = r.energy_mj
        if r.ecc_errors_total is not None:
            previous = self._last_ecc.get(r.gpu_index)
            delta = counter_delta(previous, r.ecc_errors_total) if previous is not None else 0
            acc.ecc_errors = _add(acc.ecc_errors, delta)
            self._last_ecc[r.gpu_index] = r.ecc_errors_total
        if r.xid_events is not None:
            acc.xid_errors = _add(acc.xid_errors, r.xid_events)

    def pending_minutes(self) -> list[datetime]:
        """Minutes with readings not yet emitted."""
        return sorted(self._minutes)

    def close(self, before: datetime) -> list[dict[str, Any]]:
        """Rows of every minute that starts before `before` (those minutes are finished)."""
        rows: list[dict[str, Any]] = []
        for minute in sorted(m for m in self._minutes if m < before):
            bucket = self._minutes.pop(minute)
            rows.extend(self.row(minute, index, acc) for index, acc in sorted(bucket.items()))
        return rows

    def row(self, minute: datetime, index: int, acc: _GpuMinute) -> dict[str, Any]:
        """One `gpu_samples` row from a GPU's minute."""
        first = acc.readings[0]
        uuid = next((r.gpu_uuid for r in acc.readings if r.gpu_uuid), None)
        row: dict[str, Any] = {
            "sample_id": sample_id(self.labels.node, gpu_key(uuid, index), minute),
            "minute": minute,
            "node": self.labels.node,
            "project_id": self.labels.project_id,
            "resource_name": self.labels.resource_name,
            "gpu_uuid": uuid,
            "gpu_index": index,
            "gpu_name": first.gpu_name,
        }
        pod = _pod(acc)
        row.update(
            pod_namespace=pod.namespace if pod else None,
            pod_name=pod.name if pod else None,
            pod_uid=pod.uid if pod else None,
        )
        row.update(_measures(acc))
        return row


def _pod(acc: _GpuMinute) -> PodRef | None:
    """The pod that held the GPU for most of the minute's readings (ties: the first seen)."""
    return acc.pods.most_common(1)[0][0] if acc.pods else None


def _measures(acc: _GpuMinute) -> dict[str, Any]:
    ok = [r for r in acc.readings if r.status == "ok"]
    out: dict[str, Any] = {f: _mean(getattr(r, f) for r in ok) for f in MEAN_FIELDS}
    used_mean = _mean(r.mem_used_bytes for r in ok)
    out.update(
        util_gpu_max_pct=_max(r.util_gpu_pct for r in ok),
        mem_used_bytes=round(used_mean) if used_mean is not None else None,
        mem_used_max_bytes=_max(r.mem_used_bytes for r in ok),
        mem_total_bytes=_max(r.mem_total_bytes for r in ok),
        power_max_w=_max(r.power_w for r in ok),
        energy_j=acc.energy_mj / 1000.0 if acc.energy_mj is not None else None,
        clock_event_reasons=_or_all(r.clock_event_reasons for r in ok),
        xid_errors=acc.xid_errors,
        ecc_errors=acc.ecc_errors,
        compute_processes_max=_max(r.compute_processes for r in ok),
        samples=len(ok),
        status=_status(acc.readings, ok),
    )
    return out


def _or_all(masks: Iterable[int | None]) -> int | None:
    known = [m for m in masks if m is not None]
    if not known:
        return None
    combined = 0
    for mask in known:
        combined |= mask
    return combined


def _status(readings: list[Reading], ok: list[Reading]) -> str:
    if len(ok) < len(readings):
        return "lost"
    for name in CORE_FIELDS:
        if all(getattr(r, name) is None for r in ok):
            return "not_supported"
    return "ok"
