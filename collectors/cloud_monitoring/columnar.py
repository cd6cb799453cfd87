"""Saved Monitoring pages read in columns (issue 15), not as a dict per point.

Arrow's JSON reader parses a page against `PAGE_SCHEMA` (the fields flopledger reads; any
other field is skipped) straight into typed columns: no Python object per point. The points
are flattened into arrays, their end times mapped to minutes once per distinct text (by the
per-object reader's own function), and checked by vectorised predicates; each series'
identity (about a hundred a page) is read by `parse.series_target`, the per-object reader's
one function. The points go to the `SampleBuilder` as arrays.

A page is read here only when Arrow reads it to the letter of the per-object reader (json.loads
and `SampleBuilder.add_page`); anything else goes whole to that reader, which loads it or
quarantines it with the reasons it always gave. So rows, refusals and notes are the same
either way; only the common case is fast. Sent to the per-object reader:

- any byte past ASCII (the file may not be UTF-8), any backslash (an escape, even in a key),
  any `null` (the per-object reader tells a null from an absent field; Arrow cannot), any
  `NaN` or `Inf` (Arrow also reads -NaN, Inf and -Inf, which json.loads refuses), any
  `executionErrors` or `unreachable` member (their notes quote the raw member);
- a page Arrow refuses: not one JSON object, a key it reads named twice in one object (the
  per-object reader refuses that page whole: `read_key_twice`), a field of another type (a
  number as a string, "NaN" as a string, an int64Value as a number, a label that is not a
  string), a number past a double;
- a series the per-object reader would refuse (no metric, a resource label missing), a point
  without its end time or value, an end time it cannot read, an int64Value that is not
  plain digits (at most 18), a value of -0 (json.loads reads the token -0 as the integer
  0), and a point its checks refuse (outside the plausible window, a byte count or
  percentage out of range, an infinity).

One difference is kept on purpose: a valid page nested deeper than Python's json module goes
(about 1,000 levels, in a member no one reads) is quarantined by the per-object reader and
loaded here; a check of the depth would cost a pass over every page, a third of its read.
tests/collectors/cloud_monitoring/test_pages_columnar_fuzz.py compares the two readers.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

from flopledger.collectors.cloud_monitoring.parse import (
    BadInput,
    ChipKey,
    SampleBuilder,
    series_target,
)

BOM = b"\xef\xbb\xbf"
# The labels series_target reads (any other label is never looked at).
METRIC_LABELS = ("accelerator_id", "make")
RESOURCE_LABELS = (
    "project_id",
    "zone",
    "node_id",
    "worker_id",
    "resource_container",
    "location",
    "node_name",
)
_STRING = pa.string()


def _named(labels: tuple[str, ...]) -> pa.DataType:
    fields = [pa.field(n, _STRING) for n in labels]
    return pa.struct([pa.field("type", _STRING), pa.field("labels", pa.struct(fields))])


POINT = pa.struct(
    [
        pa.field("interval", pa.struct([pa.field("endTime", _STRING)])),
        pa.field(
            "value",
            pa.struct([pa.field("doubleValue", pa.float64()), pa.field("int64Value", _STRING)]),
        ),
    ]
)
SERIES = pa.struct(
    [
        pa.field("metric", _named(METRIC_LABELS)),
        pa.field("resource", _named(RESOURCE_LABELS)),
        pa.field("points", pa.list_(POINT)),
    ]
)
PAGE_SCHEMA = pa.schema([pa.field("timeSeries", pa.list_(SERIES))])


class JsonObject(dict):
    """A JSON object as json.loads gives it (the last of a key named twice), and which keys
    it named twice (`noting_twice`)."""

    twice: frozenset[str] = frozenset()


def noting_twice(pairs: list[tuple[str, Any]]) -> JsonObject:
    """json.loads' object_pairs_hook for the per-object reader: a dict that remembers the keys
    it was given twice, for `read_key_twice`."""
    found = JsonObject(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        twice: set[str] = set()
        for key, _ in pairs:
            (twice if key in seen else seen).add(key)
        found.twice = frozenset(twice)
    return found


def _shape(kind: pa.DataType) -> Any:
    """PAGE_SCHEMA's fields as nested dicts and lists (a leaf: None)."""
    if pa.types.is_struct(kind):
        return {kind.field(i).name: _shape(kind.field(i).type) for i in range(kind.num_fields)}
    if pa.types.is_list(kind):
        return [_shape(kind.value_type)]
    return None


_READ = {field.name: _shape(field.type) for field in PAGE_SCHEMA}


def read_key_twice(page: Any, shape: Any = _READ) -> str | None:
    """A key this reader reads that an object of the page names twice (Arrow refuses such a
    page, so the per-object reader must too: which of the two is meant cannot be told); a key
    no one reads may be named twice, as Arrow lets it."""
    if isinstance(shape, dict) and isinstance(page, dict):
        twice = sorted(getattr(page, "twice", frozenset()) & shape.keys())
        if twice:
            return twice[0]
        for key, inner in shape.items():
            if inner is not None and key in page and (found := read_key_twice(page[key], inner)):
                return found
    elif isinstance(shape, list) and isinstance(page, list):
        for item in page:
            if found := read_key_twice(item, shape[0]):
                return found
    return None


# NaN and Inf: Arrow also reads -NaN, Inf and -Inf, which json.loads refuses.
_REFUSED_BYTES = (b"\\", b"null", b"NaN", b"Inf", b'"executionErrors"', b'"unreachable"')
_INT64_TEXT = r"^-?[0-9]{1,18}$"


def parse_page(data: bytes) -> pa.Array | None:
    """A saved page's (the file's bytes) `timeSeries` parsed into columns, or None when the
    page must go to the per-object reader. Touches no builder, and Arrow's parse lets go of
    the GIL: pages may be parsed on threads while the builder takes earlier ones."""
    data = data[len(BOM) :] if data.startswith(BOM) else data
    if len(data) >= 2**31 - 1:  # past the reader's block size (an int32)
        return None
    if not data.isascii() or any(b in data for b in _REFUSED_BYTES):
        return None
    try:
        table = pj.read_json(
            pa.BufferReader(data),
            read_options=pj.ReadOptions(use_threads=False, block_size=max(len(data) + 1, 1 << 16)),
            parse_options=pj.ParseOptions(
                explicit_schema=PAGE_SCHEMA,
                newlines_in_values=True,
                unexpected_field_behavior="ignore",
            ),
        )
    except (pa.ArrowException, ValueError):
        return None
    if table.num_rows != 1:
        return None  # json.loads reads exactly one value
    return table.column("timeSeries").combine_chunks()


def add_parsed(builder: SampleBuilder, time_series: pa.Array) -> bool:
    """Add a page parsed by `parse_page` to `builder`; True when added, False (and nothing
    added) when the page must go to the per-object reader."""
    if time_series.null_count:  # no timeSeries member: a page with no series
        return True
    notes: list[str] = []
    try:
        arrays = _points(builder, pc.list_flatten(time_series), notes)
    except BadInput:
        return False
    for text in notes:  # the page is read: its notes in series order, as series by series
        builder.note(text)
    if arrays is not None:
        builder.add_arrays(*arrays)
    return True


def _series_dict(metric: dict[str, Any] | None, resource: dict[str, Any] | None) -> dict:
    """A series as json.loads would give the fields series_target reads (no nulls: absent)."""
    series: dict[str, Any] = {}
    for name, part in (("metric", metric), ("resource", resource)):
        if part is not None:
            series[name] = {k: v for k, v in part.items() if v is not None}
            if "labels" in series[name]:
                labels = series[name]["labels"]
                series[name]["labels"] = {k: v for k, v in labels.items() if v is not None}
    return series


def _points(
    builder: SampleBuilder, series: pa.StructArray, notes: list[str]
) -> tuple[list[ChipKey], np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """(keys, key of each point, column, minute, value) of a page's collected points, and its
    notes appended to `notes`; None when it has no point to load. Raises BadInput when
    anything must go to the per-object reader."""
    keys: list[ChipKey] = []
    key_of_series = np.full(len(series), -1, dtype=np.int64)
    column_of_series = np.zeros(len(series), dtype=np.uint8)
    metrics = series.field("metric").to_pylist()
    resources = series.field("resource").to_pylist()
    for i, (metric, resource) in enumerate(zip(metrics, resources, strict=True)):
        target = series_target(_series_dict(metric, resource), builder.inventory, notes)
        if target is not None:
            key_of_series[i], column_of_series[i] = len(keys), target[1]
            keys.append(target[0])
    if not keys:
        return None
    lists = series.field("points")
    parent = pc.list_parent_indices(lists).to_numpy()
    flat = pc.list_flatten(lists)
    kept = key_of_series[parent] >= 0
    if not kept.all():
        flat, parent = flat.filter(pa.array(kept)), parent[kept]
    if not len(flat):
        return None
    column = column_of_series[parent]
    minute = _minutes(builder, flat)
    value = _values(flat)
    if not builder.arrays_pass(column, minute, value):
        raise BadInput("a point its checks refuse")
    return keys, key_of_series[parent], column, minute, value


def _valid(array: pa.Array, *path: str) -> pa.Array:
    """The field at `path`; BadInput when any point lacks it (or a struct on the way)."""
    for name in path:
        if array.null_count:
            raise BadInput(f"a point has no {name}")
        array = array.field(name)
    return array


def _minutes(builder: SampleBuilder, points: pa.StructArray) -> np.ndarray:
    ends = _valid(points, "interval", "endTime")
    if ends.null_count:
        raise BadInput("a point has no endTime")
    encoded = ends.dictionary_encode()
    minutes = np.array([builder.minute_of(t) for t in encoded.dictionary.to_pylist()], np.int64)
    return minutes[encoded.indices.to_numpy()]


def _values(points: pa.StructArray) -> np.ndarray:
    """doubleValue where present, else int64Value (plain digits only), as json.loads and
    `point_value` read them."""
    doubles = _valid(points, "value", "doubleValue")
    ints = _valid(points, "value", "int64Value")
    if not doubles.null_count:
        return _no_negative_zero(doubles.to_numpy(zero_copy_only=False))
    use_int = doubles.is_null()
    if pc.any(pc.and_(use_int, ints.is_null())).as_py():
        raise BadInput("a point has neither doubleValue nor int64Value")
    texts = ints.filter(use_int)
    if not pc.all(pc.match_substring_regex(texts, _INT64_TEXT)).as_py():
        raise BadInput("an int64Value that is not plain digits")
    from_ints = pc.cast(pc.cast(texts, pa.int64()), pa.float64(), safe=False)
    values = doubles.to_numpy(zero_copy_only=False).copy()
    values[use_int.to_numpy(zero_copy_only=False)] = from_ints.to_numpy()
    return _no_negative_zero(values)


def _no_negative_zero(values: np.ndarray) -> np.ndarray:
    """-0.0 is handed over: json.loads reads the token -0 as the integer 0, Arrow as -0.0."""
    if np.any((values == 0) & np.signbit(values)):
        raise BadInput("a value of -0")
    return values
