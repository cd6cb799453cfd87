"""Probe results: the JSONL the probe CLI writes (`flopledger probe`), as `probe_results` rows.

One line per (node, device, dtype, shape); see docs/probes.md for the schema and
models/raw/probe_results.sql for the table. A line that is not JSON, misses a required
field, has a value of the wrong type, or claims a speed it did not verify is quarantined
with the reason. The same line read twice (overlapping files) is one row. No JAX here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from flopledger.collectors.files import Unreadable, iter_ndjson
from flopledger.collectors.limits import DEFAULT_LIMITS, Limits, OutOfBounds, finite, fits
from flopledger.collectors.quarantine import Quarantined
from flopledger.collectors.timeparse import BadTimestamp, parse_timestamp

SOURCE = "probe_results"

PROBE_RESULTS_SCHEMA = pa.schema(
    [
        ("result_id", pa.string()),
        ("measured_at", pa.timestamp("us")),
        ("node", pa.string()),
        ("device_index", pa.int64()),
        ("device_kind", pa.string()),
        ("accelerator_type", pa.string()),
        ("backend", pa.string()),
        ("dtype", pa.string()),
        ("m", pa.int64()),
        ("n", pa.int64()),
        ("k", pa.int64()),
        ("iterations", pa.int64()),
        ("achieved_tflops", pa.float64()),
        ("median_tflops", pa.float64()),
        ("spread_pct", pa.float64()),
        ("peak_tflops_spec", pa.float64()),
        ("peak_source", pa.string()),
        ("efficiency", pa.float64()),
        ("window_s", pa.float64()),
        ("energy_j", pa.float64()),
        ("tflops_per_w", pa.float64()),
        ("verified", pa.bool_()),
        ("verify_error_ratio", pa.float64()),
        ("failure", pa.string()),
        ("jax_version", pa.string()),
        ("probe_version", pa.string()),
    ]
)

REQUIRED = frozenset(
    {
        "result_id",
        "measured_at",
        "node",
        "device_index",
        "backend",
        "dtype",
        "m",
        "n",
        "k",
        "verified",
        "probe_version",
    }
)


# Speeds, times and energy: a negative one is a broken probe, not a measurement.
NON_NEGATIVE = ("achieved_tflops", "median_tflops", "peak_tflops_spec", "window_s", "energy_j")


class BadValue(ValueError):
    """A field whose value cannot be stored in its column; the message says which and why."""


def _int(name: str, value: Any) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, Decimal))
        or not Decimal(value).is_finite()
        or value != int(value)
    ):
        raise BadValue(f"{name} must be an integer, got {value!r}")
    try:
        return fits(name, int(value)) or 0
    except OutOfBounds as exc:
        raise BadValue(str(exc)) from None


def _float(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        raise BadValue(f"{name} must be a number, got {value!r}")
    try:
        return finite(name, float(value)) or 0.0
    except (OutOfBounds, OverflowError) as exc:
        raise BadValue(f"{name}: {value!r} is not a finite number") from exc


def _str(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise BadValue(f"{name} must be a string, got {value!r}")
    return value


def _bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise BadValue(f"{name} must be true or false, got {value!r}")
    return value


def _timestamp(name: str, value: Any) -> Any:
    try:
        return parse_timestamp(value)
    except BadTimestamp as exc:
        raise BadValue(f"{name}: {exc}") from None


_CONVERT: dict[pa.DataType, Callable[[str, Any], Any]] = {
    pa.string(): _str,
    pa.int64(): _int,
    pa.float64(): _float,
    pa.bool_(): _bool,
    pa.timestamp("us"): _timestamp,
}


def parse_record(record: Any, limits: Limits = DEFAULT_LIMITS) -> dict[str, Any]:
    """One JSON object as a typed row; BadValue says why it cannot be one."""
    if not isinstance(record, dict):
        raise BadValue("line is not a JSON object")
    missing = sorted(name for name in REQUIRED if record.get(name) is None)
    if missing:
        raise BadValue(f"missing required field(s): {', '.join(missing)}")
    row = {}
    for field in PROBE_RESULTS_SCHEMA:
        value = record.get(field.name)
        row[field.name] = None if value is None else _CONVERT[field.type](field.name, value)
    _check_consistent(row)
    try:
        limits.time("measured_at", row["measured_at"])
    except OutOfBounds as exc:
        raise BadValue(str(exc)) from None
    return row


def _check_consistent(row: dict[str, Any]) -> None:
    if min(row["m"], row["n"], row["k"]) <= 0:
        raise BadValue("m, n and k must be positive")
    for name in NON_NEGATIVE:
        if row[name] is not None and row[name] < 0:
            raise BadValue(f"{name} must not be negative, got {row[name]!r}")
    if row["verified"] and row["achieved_tflops"] is None:
        raise BadValue("verified result without achieved_tflops")
    if not row["verified"] and row["achieved_tflops"] is not None:
        raise BadValue("unverified result reports a speed (achieved_tflops must be null)")


@dataclass
class ProbeRead:
    """rows_read = rows + quarantined + duplicates (a result_id read again, identical)."""

    rows_read: int = 0
    duplicates: int = 0


def _read_file(
    path: Path,
    rows: dict[str, dict[str, Any]],
    bad: list[Quarantined],
    limits: Limits,
    stats: ProbeRead,
) -> None:
    for line, record, raw in iter_ndjson(path):
        stats.rows_read += 1
        try:
            if isinstance(record, Unreadable):
                raise BadValue(str(record))
            row = parse_record(record, limits)
        except BadValue as exc:
            bad.append(Quarantined(SOURCE, str(path), line, str(exc), raw))
            continue
        seen = rows.setdefault(row["result_id"], row)
        if seen is not row and seen == row:
            stats.duplicates += 1
        elif seen != row:
            bad.append(
                Quarantined(
                    SOURCE, str(path), line, "result_id seen before with different values", raw
                )
            )


def read_probe_results(
    paths: list[Path], limits: Limits = DEFAULT_LIMITS, stats: ProbeRead | None = None
) -> tuple[pa.Table, list[Quarantined]]:
    """Rows of every probe JSONL file (one row per result_id) and the lines that were refused."""
    rows: dict[str, dict[str, Any]] = {}
    bad: list[Quarantined] = []
    stats = stats if stats is not None else ProbeRead()
    for path in paths:
        if not path.is_file():
            stats.rows_read += 1
            bad.append(Quarantined(SOURCE, str(path), None, "file not found", ""))
            continue
        _read_file(path, rows, bad, limits, stats)
    return pa.Table.from_pylist(list(rows.values()), schema=PROBE_RESULTS_SCHEMA), bad


def probe_days(paths: list[Path], limits: Limits = DEFAULT_LIMITS) -> set[date]:
    """The UTC days the probe files hold measurements of (probe files carry no day in their name)."""
    results, _ = read_probe_results(paths, limits)
    return {d for d in pc.cast(results["measured_at"], pa.date32()).to_pylist() if d is not None}
