"""One run record of the jobs file (JSONL, CSV or Parquet) to a `jobs` row and its placements."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from datetime import date, datetime
from decimal import Decimal
from fractions import Fraction
from typing import Any

from flopledger.collectors.accelerators import canonical_accelerator
from flopledger.collectors.jobs.schema import STATUSES, WORKLOAD_CLASSES
from flopledger.collectors.limits import (
    DEFAULT_LIMITS,
    INT32_MAX,
    INT64_MAX,
    Limits,
    OutOfBounds,
    finite,
)
from flopledger.collectors.timeparse import BadTimestamp, parse_timestamp


class BadRecord(ValueError):
    """A run record that cannot be loaded; the message is the quarantine reason."""


def _time(record: dict[str, Any], key: str) -> datetime | None:
    try:
        return parse_timestamp(record.get(key))
    except BadTimestamp as exc:
        raise BadRecord(f"{key}: {exc}") from None


def _int(record: dict[str, Any], key: str, maximum: int = INT64_MAX) -> int | None:
    """A whole number >= 0 that fits its column (int32 or int64)."""
    value = record.get(key)
    if value is None or value == "":
        return None
    try:
        number = Decimal(str(value))
    except ArithmeticError:
        raise BadRecord(f"{key}: {value!r} is not a number") from None
    if not number.is_finite() or number != number.to_integral_value() or number < 0:
        raise BadRecord(f"{key}: {value!r} is not a whole number >= 0")
    if number > maximum:
        column = "INTEGER" if maximum == INT32_MAX else "BIGINT"
        raise BadRecord(f"{key}: {value!r} does not fit its {column} column")
    return int(number)


def _float(record: dict[str, Any], key: str) -> float | None:
    value = record.get(key)
    if value is None or value == "":
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise BadRecord(f"{key}: {value!r} is not a number") from None
    try:
        return finite(key, number)
    except OutOfBounds as exc:
        raise BadRecord(str(exc)) from None


def _text(record: dict[str, Any], key: str) -> str | None:
    value = record.get(key)
    return None if value is None or value == "" else str(value)


def _json_field(record: dict[str, Any], key: str, default: Any) -> Any:
    """A nested field; CSV carries it as JSON text."""
    value = record.get(key)
    if value is None or value == "":
        return default
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
            raise BadRecord(f"{key}: not valid JSON") from None
    return value


def _labels(record: dict[str, Any]) -> list[tuple[str, str]]:
    labels = _json_field(record, "labels", {})
    if isinstance(labels, list):  # Parquet maps arrive as [(key, value), ...]
        try:
            labels = dict(labels)
        except (TypeError, ValueError):
            raise BadRecord("labels: expected a map of key to value") from None
    if not isinstance(labels, dict):
        raise BadRecord("labels: expected a map of key to value")
    return [(str(k), "" if v is None else str(v)) for k, v in labels.items()]


def _choice(record: dict[str, Any], key: str, allowed: tuple[str, ...]) -> str:
    value = _text(record, key)
    if value not in allowed:
        raise BadRecord(f"{key}: {value!r} is not one of {', '.join(allowed)}")
    return value


def _accelerator(record: dict[str, Any]) -> str | None:
    name = _text(record, "accelerator_type")
    canonical = canonical_accelerator(name)
    if name and canonical is None:
        raise BadRecord(f"accelerator_type: unknown accelerator {name!r}")
    return canonical


def placement_id(
    run_id: str, index: int, resource: str, start: datetime | None, end: datetime | None
) -> str:
    """Stable id of a run's `index`-th placement (a run may list one resource twice)."""
    key = f"{run_id}\x1f{index}\x1f{resource}\x1f{start}\x1f{end}"
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def _check_window(start: datetime | None, end: datetime | None, what: str) -> None:
    if start is not None and end is not None and end < start:
        raise BadRecord(f"{what} ends before it starts ({end.isoformat()} < {start.isoformat()})")


def _placements(
    record: dict[str, Any], run: dict[str, Any], limits: Limits
) -> list[dict[str, Any]]:
    items = _json_field(record, "placements", [])
    if not isinstance(items, list):
        raise BadRecord("placements: expected a list")
    _bounded(limits.nodes, "placements", len(items))
    rows = []
    for i, item in enumerate(items):
        if not isinstance(item, dict) or not item.get("resource_name"):
            raise BadRecord(f"placements[{i}]: resource_name is required")
        start = _time(item, "start") or run["started_at"]
        end = _time(item, "end") or run["ended_at"]
        _check_window(start, end, f"placements[{i}]")
        _bounded(limits.time, f"placements[{i}].start", start)
        _bounded(limits.time, f"placements[{i}].end", end)
        accelerators = _int(item, "accelerators", INT32_MAX)
        if accelerators is None:
            raise BadRecord(f"placements[{i}]: accelerators is required")
        resource = str(item["resource_name"])
        numerator, denominator = _int(item, "share_numerator"), _int(item, "share_denominator")
        if numerator == 0 or denominator == 0 or (numerator is None) != (denominator is None):
            raise BadRecord(
                f"placements[{i}]: share_numerator and share_denominator go together, > 0"
            )
        rows.append(
            {
                "placement_id": placement_id(run["run_id"], i, resource, start, end),
                "run_id": run["run_id"],
                "project_id": _text(item, "project_id") or run["project_id"],
                "resource_name": resource,
                "accelerators": accelerators,
                "share_numerator": numerator,  # a MIG slice's share of each accelerator
                "share_denominator": denominator,
                "start_at": start,
                "end_at": end,
                "submitted_day": run["submitted_day"],
            }
        )
    return rows


def _held(row: dict[str, Any]) -> Fraction:
    """Accelerators a placement holds, a MIG slice at its share of one."""
    return Fraction(
        row["accelerators"] * (row["share_numerator"] or 1), row["share_denominator"] or 1
    )


def _peaks(rows: list[dict[str, Any]]) -> list[tuple[int, Fraction]]:
    """Per resource, (the placement at which the run holds the most there at one moment, that
    most): placements of one resource add up while their windows overlap (an open end runs
    on; one that ends as another starts does not overlap it)."""
    events: dict[tuple[Any, str], list[tuple[datetime, int, Fraction, int]]] = defaultdict(list)
    for i, row in enumerate(rows):
        held, key = _held(row), (row["project_id"], row["resource_name"])
        events[key].append((row["start_at"] or datetime.min, 1, held, i))
        events[key].append((row["end_at"] or datetime.max, 0, -held, i))
    peaks = []
    for timeline in events.values():
        level, peak = Fraction(0), (0, Fraction(0))
        for _, _, change, i in sorted(timeline):
            level += change
            if level > peak[1]:
                peak = (i, level)
        peaks.append(peak)
    return peaks


def _check_capacity(
    run: dict[str, Any], rows: list[dict[str, Any]], limits: Limits, whole_slice: bool
) -> None:
    """No run holds more on one resource than any machine (or, for a jobs file, any TPU slice)
    of its accelerator type has, nor asks for more than max_nodes_per_job of them: the run is
    quarantined whole, never clipped."""
    kind = run["accelerator_type"]
    for i, held in _peaks(rows):
        where = f"placements[{i}] ({rows[i]['resource_name']})"
        _bounded(limits.accelerators_on_one, where, held, kind, whole_slice)
    count = run["accelerator_count"]
    _bounded(limits.accelerators_per_run, "accelerator_count", count, kind, whole_slice)


def _times(
    record: dict[str, Any], limits: Limits
) -> tuple[datetime, datetime | None, datetime | None, date]:
    submitted, started, ended = (
        _time(record, k) for k in ("submitted_at", "started_at", "ended_at")
    )
    for key, moment in (("submitted_at", submitted), ("started_at", started), ("ended_at", ended)):
        _bounded(limits.time, key, moment)
    if submitted is None:
        raise BadRecord("submitted_at is required")
    _check_window(started, ended, "the run")
    return submitted, started, ended, submitted.date()


def _bounded(check: Any, *args: Any) -> Any:
    """A `Limits` check whose refusal is this record's quarantine reason."""
    try:
        return check(*args)
    except OutOfBounds as exc:
        raise BadRecord(str(exc)) from None


def normalise_job(
    record: Any,
    source: str,
    line: int,
    scheduler: str = "jobs_file",
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The `jobs` row and `job_placements` rows of one run record, or BadRecord."""
    if not isinstance(record, dict):
        raise BadRecord(f"expected an object, got {type(record).__name__}")
    run_id = _text(record, "run_id")
    if run_id is None:
        raise BadRecord("run_id is required")
    submitted, started, ended, day = _times(record, limits)
    status = _choice(record, "status", STATUSES)
    if status != "running" and started is not None and ended is None:
        raise BadRecord(f"status is {status} but ended_at is missing")
    run = {
        "run_id": run_id,
        "job_id": _text(record, "job_id") or run_id,
        "attempt": _int(record, "attempt", INT32_MAX) or 1,
        "team": _text(record, "team"),
        "project_id": _text(record, "project_id"),
        "workload_class": _choice(record, "workload_class", WORKLOAD_CLASSES),
        "experiment_id": _text(record, "experiment_id"),
        "model_name": _text(record, "model_name"),
        "model_params": _int(record, "model_params"),
        "model_flops": _float(record, "model_flops"),
        "submitted_at": submitted,
        "started_at": started,
        "ended_at": ended,
        "status": status,
        "accelerator_type": _accelerator(record),
        "accelerator_count": _int(record, "accelerator_count", INT32_MAX),
        "tokens_in": _int(record, "tokens_in"),
        "tokens_out": _int(record, "tokens_out"),
        "labels": _labels(record),
        "scheduler": scheduler,
        "submitted_day": day,
        "source": source,
        "source_line": line,
    }
    placements = _placements(record, run, limits)
    # A jobs file's resource may be a whole TPU slice; a node or host (Kubernetes, Slurm) is one
    # machine.
    _check_capacity(run, placements, limits, whole_slice=scheduler == "jobs_file")
    return run, placements
