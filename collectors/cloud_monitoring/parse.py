"""ListTimeSeriesResponse pages (as JSON dicts) -> `tpu_samples` rows.

Both the API path (each response page turned into its JSON form) and saved pages go
through `SampleBuilder`, so there is one parser. A point's value covers the period that
ends at its `endTime` (aligned points carry the end of their 60 s period), so a point
ending at 10:02:00 belongs to minute 10:01. Several points in one chip-minute-metric
(unaligned saved pages) are averaged. Unreadable pages, series and points are
quarantined; series that are readable but name no billed node are reported as notes.
"""

from __future__ import annotations

import hashlib
import json
from array import array
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from itertools import repeat
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from flopledger.collectors.cloud_monitoring.inventory import Inventory
from flopledger.collectors.cloud_monitoring.schema import (
    BYTES_COLUMNS,
    KEY_COLUMNS,
    METRIC_COLUMNS,
    TPU_SAMPLES_SCHEMA,
    metric_column,
)
from flopledger.collectors.limits import DEFAULT_LIMITS, INT64_MAX, Limits
from flopledger.collectors.quarantine import Quarantined

SOURCE = "cloud_monitoring"
GCE_TPU_WORKER = "tpu.googleapis.com/GceTpuWorker"
RAW_LIMIT_CHARS = 65_536
GPU_MAKES = frozenset({"nvidia", "amd"})
_COLUMNS = tuple(METRIC_COLUMNS.values())
_MINUTE_US = 60_000_000
_EPOCH = datetime(1970, 1, 1)

ChipKey = tuple[str | None, ...]  # values in KEY_COLUMNS order


class BadInput(ValueError):
    """A page, series or point that cannot be read; the message is the quarantine reason."""


@dataclass(frozen=True)
class Identity:
    """Who a series belongs to: a chip key, or a note (reported, not loaded)."""

    key: ChipKey | None
    note: str | None = None


def raw_text(obj: Any) -> str:
    """JSON text of a refused object, cut to RAW_LIMIT_CHARS."""
    text = obj if isinstance(obj, str) else json.dumps(obj, sort_keys=True, default=str)
    return text[:RAW_LIMIT_CHARS]


def _labels(obj: Any, where: str) -> dict[str, str]:
    labels = obj.get("labels") or {} if isinstance(obj, dict) else None
    if not isinstance(labels, dict):
        raise BadInput(f"{where}.labels is not a mapping")
    return {str(k): str(v) for k, v in labels.items()}


def _need(labels: dict[str, str], *names: str) -> list[str]:
    missing = [n for n in names if not labels.get(n)]
    if missing:
        raise BadInput(f"resource label(s) missing: {', '.join(missing)}")
    return [labels[n] for n in names]


def _gce_tpu_worker(labels: dict[str, str], inventory: Inventory | None) -> Identity:
    """GceTpuWorker carries no node name: look the worker up in the inventory."""
    container = labels.get("resource_container") or labels.get("project_id")
    if not container:
        raise BadInput("resource label(s) missing: resource_container")
    zone, worker = _need(labels, "location", "worker_id")
    node = inventory.lookup(container, zone, worker) if inventory else None
    if node is None:
        why = "is not in the inventory" if inventory else "has no inventory to map it"
        note = f"{GCE_TPU_WORKER} worker {worker} in {zone} (project {container}) {why}: no billed node"
        return Identity((container, zone, None, None, worker), note)
    return Identity((node.project_id, node.zone, node.node, node.node, worker))


def identify(
    resource: dict[str, Any], metric_labels: dict[str, str], inv: Inventory | None
) -> Identity:
    """The chip a series measures (accelerator_id and resource type appended by the caller)."""
    rtype, labels = str(resource.get("type") or ""), _labels(resource, "resource")
    if rtype == "tpu_worker":
        project, zone, node, worker = _need(labels, "project_id", "zone", "node_id", "worker_id")
        return Identity((project, zone, node, node, worker))
    if rtype == GCE_TPU_WORKER:
        return _gce_tpu_worker(labels, inv)
    if rtype == "k8s_node":
        project, zone, node = _need(labels, "project_id", "location", "node_name")
        make = metric_labels.get("make", "").lower()
        if make in GPU_MAKES:
            return Identity(None, f"k8s_node {node}: {make} accelerator, not a TPU; not collected")
        return Identity((project, zone, node, node, None))
    return Identity(None, f"monitored resource type {rtype!r} is not collected")


def _minute_us(text: Any, cache: dict[str, int]) -> int:
    """Microseconds since the epoch of the minute a point ending at `text` covers."""
    if not isinstance(text, str):
        raise BadInput("point.interval.endTime is not a string")
    hit = cache.get(text)
    if hit is not None:
        return hit
    head, dot, frac = text.partition(".")
    zone = frac.lstrip("0123456789")  # keep at most 6 fraction digits (RFC 3339 allows 9)
    clean = head + dot + frac[: min(6, len(frac) - len(zone))] + zone if dot else text
    try:
        when = datetime.fromisoformat(clean)
    except ValueError:
        raise BadInput(f"point.interval.endTime {text!r} is not RFC 3339") from None
    if when.tzinfo is not None:
        try:
            when = when.astimezone(UTC).replace(tzinfo=None)
        except OverflowError:  # 0001-01-01T00:00:00+05:00 is in year 0 in UTC
            raise BadInput(f"point.interval.endTime {text!r} is before year 1 in UTC") from None
    end_us = (when - _EPOCH) // timedelta(microseconds=1)
    cache[text] = (end_us - 1) // _MINUTE_US * _MINUTE_US
    return cache[text]


def read_point(point: Any, cache: dict[str, int]) -> tuple[int, float]:
    """(minute in epoch microseconds, value) of one point."""
    try:
        end, value = point["interval"]["endTime"], point["value"]
    except (TypeError, KeyError):
        raise BadInput("point has no interval.endTime or no value") from None
    return _minute_us(end, cache), point_value(value)


def point_value(value: Any) -> float:
    """A TypedValue as a float; NaN for a missing (NaN) reading."""
    if not isinstance(value, dict):
        raise BadInput("point.value is not a mapping")
    try:
        if "doubleValue" in value:
            return float(value["doubleValue"])
        if "int64Value" in value:
            return float(int(value["int64Value"]))
    except (TypeError, ValueError, OverflowError):  # OverflowError: an integer past a double
        raise BadInput(f"point.value {value!r} is not a number") from None
    raise BadInput(f"point.value {value!r} is not a doubleValue or int64Value")


def series_target(
    series: Any, inventory: Inventory | None, notes: list[str]
) -> tuple[ChipKey, int] | None:
    """(chip key, column number) a series' points go to; None when it is not collected (the
    reason appended to `notes`). Raises BadInput for a series that cannot be read. The one
    reading of a series' identity, for the per-object and the columnar reader alike."""
    if not isinstance(series, dict) or not isinstance(series.get("metric"), dict):
        raise BadInput("time series has no metric")
    metric_type = str(series["metric"].get("type") or "")
    column = metric_column(metric_type)
    if column is None:
        notes.append(f"metric type {metric_type!r} is not collected")
        return None
    if not isinstance(series.get("resource"), dict):
        raise BadInput("time series has no monitored resource")
    metric_labels = _labels(series["metric"], "metric")
    identity = identify(series["resource"], metric_labels, inventory)
    if identity.note:
        notes.append(identity.note)
    if identity.key is None:
        return None
    accelerator = metric_labels.get("accelerator_id")
    if not accelerator:
        raise BadInput("metric label accelerator_id missing")
    rtype = str(series["resource"]["type"])
    return (*identity.key, accelerator, rtype), _COLUMNS.index(column)


class SampleBuilder:
    """Accumulates points from any number of pages; `finish()` pivots them into rows."""

    def __init__(self, inventory: Inventory | None = None, limits: Limits = DEFAULT_LIMITS) -> None:
        self.inventory = inventory
        self.limits = limits
        self._earliest_us = (limits.earliest - _EPOCH) // timedelta(microseconds=1)
        self._latest_us = (limits.latest - _EPOCH) // timedelta(microseconds=1)
        self.quarantined: list[Quarantined] = []
        self._notes: dict[str, None] = {}
        self._keys: dict[ChipKey, int] = {}
        self._key_idx = array("I")
        self._minute_us = array("q")
        self._column = array("B")
        self._value = array("d")
        self._time_cache: dict[str, int] = {}

    def note(self, text: str) -> None:
        """Report something once (series mapped to no billed node, incomplete data)."""
        self._notes.setdefault(text)

    def refuse(self, file: str, line: int | None, reason: str, raw: Any) -> None:
        """Quarantine an unreadable page (line None), series or point."""
        self.quarantined.append(Quarantined(SOURCE, file, line, reason, raw_text(raw)))

    def add_page(self, page: Any, file: str) -> None:
        """Add one ListTimeSeriesResponse in its JSON form; `line` = series number on the page."""
        series_list = page.get("timeSeries", []) if isinstance(page, dict) else None
        if not isinstance(series_list, list):
            self.refuse(file, None, "not a ListTimeSeriesResponse (no timeSeries list)", page)
            return
        for error in page.get("executionErrors") or []:
            self.note(f"{file}: execution error, data may be incomplete: {raw_text(error)}")
        for region in page.get("unreachable") or []:
            self.note(f"{file}: region {region} unreachable, data may be incomplete")
        for line, series in enumerate(series_list, 1):
            try:
                self._add_series(series, file, line)
            except BadInput as exc:
                self.refuse(file, line, str(exc), series)

    def _add_series(self, series: Any, file: str, line: int) -> None:
        notes: list[str] = []
        try:
            target = series_target(series, self.inventory, notes)
        finally:
            for text in notes:  # noted even when the series is then refused
                self.note(text)
        if target is not None:
            key = self._keys.setdefault(target[0], len(self._keys))
            self._add_points(series.get("points") or [], key, target[1], file, line)

    def add_arrays(
        self,
        keys: list[ChipKey],
        key_of_point: np.ndarray,
        column: np.ndarray,
        minute_us: np.ndarray,
        value: np.ndarray,
    ) -> None:
        """Points already read and checked in columns (columnar.py): `key_of_point` indexes
        `keys`, which are registered in their order, as series by series would."""
        ids = np.array([self._keys.setdefault(k, len(self._keys)) for k in keys], dtype=np.uint32)
        self._key_idx.frombytes(ids[key_of_point].astype(np.uint32).tobytes())
        self._column.frombytes(column.astype(np.uint8).tobytes())
        self._minute_us.frombytes(minute_us.astype(np.int64).tobytes())
        self._value.frombytes(value.astype(np.float64).tobytes())

    def minute_of(self, end_time: str) -> int:
        """`_minute_us` with this builder's cache (raises BadInput)."""
        return _minute_us(end_time, self._time_cache)

    def _add_points(self, points: Any, key: int, column: int, file: str, line: int) -> None:
        if not isinstance(points, list):
            raise BadInput("points is not a list")
        fast = self._fast_points(points, column)
        if fast is not None:
            self._key_idx.extend(repeat(key, len(fast[1])))
            self._column.extend(repeat(column, len(fast[1])))
            self._minute_us.frombytes(fast[0].tobytes())
            self._value.frombytes(fast[1].tobytes())
            return
        minutes, values = array("q"), array("d")
        for point in points:
            try:
                minute, value = read_point(point, self._time_cache)
                self._check(column, minute, value)
            except BadInput as exc:
                self.refuse(file, line, f"point: {exc}", point)
                continue
            minutes.append(minute)
            values.append(value)
        self._key_idx.extend(repeat(key, len(values)))
        self._column.extend(repeat(column, len(values)))
        self._minute_us.extend(minutes)
        self._value.extend(values)

    def _fast_points(self, points: list, column: int) -> tuple[np.ndarray, np.ndarray] | None:
        """A series' points as arrays, checked as a whole, when every point is well formed
        and passes; None otherwise (the point-by-point path then finds and refuses the bad
        ones with their reasons). Same values as `read_point` and `_check` give."""
        try:
            ends = [p["interval"]["endTime"] for p in points]
            typed = [p["value"] for p in points]
            if all("doubleValue" in v for v in typed):
                values = np.array([float(v["doubleValue"]) for v in typed], dtype=np.float64)
            elif all("doubleValue" not in v and "int64Value" in v for v in typed):
                values = np.array([float(int(v["int64Value"])) for v in typed], dtype=np.float64)
            else:
                return None
            cache = self._time_cache
            minutes = np.array(
                [cache[e] if e in cache else _minute_us(e, cache) for e in ends], dtype=np.int64
            )
        except (TypeError, KeyError, ValueError, OverflowError, BadInput):
            return None
        return (minutes, values) if self.arrays_pass(column, minutes, values) else None

    def arrays_pass(
        self, column: int | np.ndarray, minute_us: np.ndarray, value: np.ndarray
    ) -> bool:
        """Whether every point of the arrays passes `_check` (`column`: one column number
        for all, or one a point); the per-object and the columnar reader's one vectorised
        copy of its rules."""
        if len(minute_us) and (
            minute_us.min() < self._earliest_us or minute_us.max() > self._latest_us
        ):
            return False
        columns = np.broadcast_to(np.asarray(column, dtype=np.uint8), value.shape)
        read = ~np.isnan(value)
        for number, name in enumerate(_COLUMNS):
            v = value[read & (columns == number)]
            if name in BYTES_COLUMNS and not np.all((v >= 0) & (v < INT64_MAX)):
                return False
            if name.endswith("_pct") and not np.all((v >= 0.0) & (v <= self.limits.max_pct)):
                return False
        return True

    def _check(self, column: int, minute_us: int, value: float) -> None:
        """A point inside the plausible window with a value its column can hold (NaN is a
        missing reading, stored as null; infinities and out-of-range values are refused)."""
        if not self._earliest_us <= minute_us <= self._latest_us:
            try:
                when = (_EPOCH + timedelta(microseconds=minute_us)).isoformat()
            except OverflowError:  # the minute of a point ending 0001-01-01T00:00:00
                when = "before 0001-01-01"
            raise BadInput(
                f"minute {when} outside the plausible window "
                f"{self.limits.earliest.date()} .. {self.limits.latest.date()}"
            )
        if value != value:  # NaN: no reading
            return
        name = _COLUMNS[column]
        if name in BYTES_COLUMNS and not 0 <= value < INT64_MAX:
            raise BadInput(f"{name}: {value!r} is not a byte count that fits BIGINT")
        if name.endswith("_pct") and not 0.0 <= value <= self.limits.max_pct:
            raise BadInput(f"{name}: {value!r} is not a percentage in 0 .. 100")

    def finish(self) -> tuple[pa.Table, list[Quarantined], list[str]]:
        """The rows, the quarantined inputs and the notes gathered so far."""
        return _pivot(self), list(self.quarantined), list(self._notes)

    @property
    def notes(self) -> list[str]:
        return list(self._notes)

    def take_quarantined(self) -> list[Quarantined]:
        """The inputs quarantined since the last call (each handed out once)."""
        taken, self.quarantined = self.quarantined, []
        return taken

    def take_day(self, day: date | None) -> pa.Table:
        """The rows of the points gathered so far whose minute falls on `day` (every point
        when None); those points are dropped, the others kept for a later day. A chip-minute
        lies on one day, so a day's rows are those a pivot of everything gives for it."""
        minutes = np.frombuffer(self._minute_us, dtype=np.int64)
        if day is None:
            keep = np.zeros(len(minutes), dtype=bool)
        else:
            start = (datetime.combine(day, datetime.min.time()) - _EPOCH) // timedelta(
                microseconds=1
            )
            keep = (minutes < start) | (minutes >= start + 1440 * _MINUTE_US)
        taken = _pivot(self, None if day is None else ~keep)
        self._key_idx, self._minute_us, self._column, self._value = (
            _kept(self._key_idx, "I", keep),
            _kept(self._minute_us, "q", keep),
            _kept(self._column, "B", keep),
            _kept(self._value, "d", keep),
        )
        return taken


def chip_hash(key: ChipKey) -> str:
    """Stable id of one chip as seen by one monitored resource."""
    text = "\x1f".join("" if part is None else part for part in key)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _kept(values: array, code: str, keep: np.ndarray) -> array:
    """The entries of `values` where `keep` is true, as an array of the same type code."""
    out = array(code)
    if keep.any():
        out.frombytes(np.frombuffer(values, dtype=_NP[code])[keep].tobytes())
    return out


_NP = {"I": np.uint32, "q": np.int64, "B": np.uint8, "d": np.float64}


def _column_of(values: array, code: str, mask: np.ndarray | None) -> np.ndarray:
    data = np.frombuffer(values, dtype=_NP[code])
    return data if mask is None else data[mask]


def _means(
    key: np.ndarray, minute: np.ndarray, column: np.ndarray, value: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One point per chip-minute-metric: its one reading, or the mean of its readings (NaN
    when none), summed in the order the points were read (bincount adds left to right), so
    that the same points give the same bits every time (a parallel mean, as polars' pivot
    took, summed in another order now and then)."""
    if not len(value):
        return key, minute, column, value
    step = (minute - minute.min()) // _MINUTE_US
    group = (key.astype(np.int64) * (int(step.max()) + 1) + step) * len(_COLUMNS) + column
    _, first, inverse, size = np.unique(
        group, return_index=True, return_inverse=True, return_counts=True
    )
    if len(first) == len(value):
        return key, minute, column, value  # no chip-minute-metric read twice
    read = ~np.isnan(value)
    sums = np.bincount(inverse[read], weights=value[read], minlength=len(first))
    counts = np.bincount(inverse[read], minlength=len(first))
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    means = np.where(size == 1, value[first], means)  # (a lone -0.0 stays -0.0)
    return key[first], minute[first], column[first], means


def _long_frame(b: SampleBuilder, mask: np.ndarray | None = None) -> pl.DataFrame:
    key, minute, column, value = _means(
        _column_of(b._key_idx, "I", mask),
        _column_of(b._minute_us, "q", mask),
        _column_of(b._column, "B", mask),
        _column_of(b._value, "d", mask),
    )
    return pl.DataFrame(
        {
            "key_idx": pl.Series(key, dtype=pl.UInt32),
            "minute": pl.Series(minute, dtype=pl.Int64).cast(pl.Datetime("us")),
            "metric": pl.Series(column, dtype=pl.UInt8).replace_strict(
                list(range(len(_COLUMNS))), list(_COLUMNS), return_dtype=pl.Utf8
            ),
            "value": pl.Series("value", value, dtype=pl.Float64).fill_nan(None),
        }
    )


def _key_frame(b: SampleBuilder) -> pl.DataFrame:
    keys = list(b._keys)
    frame = pl.DataFrame(keys, schema=list(KEY_COLUMNS), orient="row")
    return frame.with_columns(
        pl.Series("key_idx", range(len(keys)), dtype=pl.UInt32),
        pl.Series("chip_hash", [chip_hash(k) for k in keys], dtype=pl.Utf8),
    )


def _pivot(b: SampleBuilder, mask: np.ndarray | None = None) -> pa.Table:
    """Rows of the points gathered (those where `mask` is true, when given)."""
    if not len(b._value) or (mask is not None and not mask.any()):
        return TPU_SAMPLES_SCHEMA.empty_table()
    wide = _long_frame(b, mask).pivot(
        on="metric", index=["key_idx", "minute"], values="value", aggregate_function="first"
    )
    missing = [pl.lit(None, pl.Float64).alias(c) for c in _COLUMNS if c not in wide.columns]
    wide = wide.with_columns(missing).with_columns(
        [pl.col(c).round(0).cast(pl.Int64) for c in BYTES_COLUMNS]
    )
    rows = wide.join(_key_frame(b), on="key_idx").with_columns(
        (pl.col("chip_hash") + "-" + pl.col("minute").dt.strftime("%Y%m%dT%H%M")).alias("sample_id")
    )
    order = ["minute", "project_id", "resource_name", "worker_id", "accelerator_id", "sample_id"]
    rows = rows.sort(order, nulls_last=True).select(TPU_SAMPLES_SCHEMA.names)
    return rows.to_arrow().cast(TPU_SAMPLES_SCHEMA)
