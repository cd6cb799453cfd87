"""A differential fuzzer: the columnar page reader against the per-object reader (issue 15).

`add_page_file(builder, path)` reads a saved ListTimeSeriesResponse page in columns
(columnar.read_page) when it can and hands it whole to the per-object reader (json.loads and
`SampleBuilder.add_page`) when it cannot; `columns=False` forces the latter, the reference.
For any file the two must give exactly the same `builder.finish()`: the tpu_samples table
(every column, bit for bit, -0.0 included, in the same row order), the quarantined list and
the notes in the same order; also for several files read into one builder, and a day at a
time through `PagesByDay`.

Base pages are written by `write_pages` (tpu_worker INT64 and DOUBLE series, GceTpuWorker
with and without an inventory, k8s_node of an nvidia and a TPU make, uncollected metric and
resource types, points on both sides of midnight). A seeded generator mutates them in
structure (nulls, absent fields, values of other types and spellings, end times, labels,
executionErrors, unknown fields at every level, duplicated series and points) and in text
(duplicate keys, escapes, non-ASCII and invalid bytes, a BOM, CRLF, trailing garbage, two
objects, truncation). A second generator makes only changes a plain page may carry, so the
columnar path is taken (asserted) and its own arithmetic meets the reference: values at the
column limits, 17-25 significant digits, many distinct end times, INT64 and DOUBLE points
mixed, several points in one chip-minute (their mean).

REGRESSIONS (one line each) are what the differences found were minimised to; ALIKE are hand
cases both readers must read (or fail on) alike, the fuzz's file-level variants among them.
The module takes about 6 s.
"""

from __future__ import annotations

import copy
import json
import random
import struct
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from flopledger.collectors.cloud_monitoring.inventory import Inventory, TpuNode, build_inventory
from flopledger.collectors.cloud_monitoring.pages import PagesByDay, add_page_file, write_pages
from flopledger.collectors.cloud_monitoring.parse import SampleBuilder
from tests.collectors.cloud_monitoring.columnar_page import read_page
from tests.fuzz_json import Raw, all_paths, dumps_with_raws, shuffled

SEED = 20261201
PAGES_PER_CASE = 100
TPU = "tpu.googleapis.com/accelerator/"
K8S = "kubernetes.io/node/accelerator/"
GCE = "tpu.googleapis.com/GceTpuWorker"
DAY1, DAY2 = date(2026, 10, 1), date(2026, 10, 2)
MIDNIGHT = datetime(2026, 10, 2)
NODE = {"project_id": "my-project", "zone": "us-east5-b", "node_id": "tpu-a", "worker_id": "0"}
GCE_KNOWN = {"resource_container": "1234", "location": "us-east5-b", "worker_id": "8301"}
GCE_BY_PROJECT = {"project_id": "my-project", "location": "us-east5-b", "worker_id": "8302"}
GCE_UNKNOWN = {"resource_container": "1234", "location": "us-east5-b", "worker_id": "9999"}
GKE = {"project_id": "my-project", "location": "us-central1-a", "node_name": "gke-a-1"}
INVENTORY = build_inventory(
    [
        TpuNode(
            node="tpu-v5p-east",
            project_id="my-project",
            zone="us-east5-b",
            worker_ids=("8301", "8302"),
            resource_container="1234",
        )
    ]
)


# -- the regressions -------------------------------------------------------------------------


def one_point(value: str = '{"doubleValue":12.5}', tail: str = "") -> bytes:
    """A page of one tpu_worker duty-cycle point ending 10:01 (minute 10:00), `value` its
    TypedValue's text and `tail` written after the timeSeries member."""
    series = (
        '{"metric":{"type":"tpu.googleapis.com/accelerator/duty_cycle",'
        '"labels":{"accelerator_id":"0"}},"resource":{"type":"tpu_worker","labels":'
        '{"project_id":"p","zone":"z","node_id":"n","worker_id":"0"}},'
        '"points":[{"interval":{"endTime":"2026-10-01T10:01:00Z"},"value":' + value + "}]}"
    )
    return ('{"timeSeries":[' + series + "]" + tail + "}").encode()


# The one-line cases the fuzzer's differences were minimised to, each with what went wrong.
REGRESSIONS: list[tuple[str, bytes]] = [
    (
        "doubleValue -0 (an integer token): json.loads reads int 0 -> 0.0; Arrow reads -0.0",
        one_point('{"doubleValue":-0}'),
    ),
    (
        "doubleValue -NaN: not JSON to json.loads (page quarantined); Arrow reads NaN (null)",
        one_point('{"doubleValue":-NaN}'),
    ),
    (
        "doubleValue -NaN in an uncollected series: json.loads refuses the page, Arrow reads it",
        one_point('{"doubleValue":-NaN}').replace(b"accelerator/duty_cycle", b"network/x"),
    ),
    (
        "doubleValue Inf (not Infinity) in an uncollected series: the same",
        one_point('{"doubleValue":Inf}').replace(b"accelerator/duty_cycle", b"network/x"),
    ),
    (
        "an unknown member -Inf: not JSON to json.loads, a number to Arrow",
        one_point(tail=',"x":-Inf'),
    ),
    (
        "an unknown member of 5,000 digits: json.loads raised ValueError (the read failed; now a float)",
        one_point(tail=',"x":1' + "0" * 5000),
    ),
]

# Valid pages Python's json module cannot read, for its own limits: the per-object reader
# quarantines them ("page is not JSON: maximum recursion depth exceeded ..."); Arrow reads
# them, and the columnar path loads their points. The one difference kept, on purpose: a
# check of the depth costs a pass over every page (~20 ms a 6.6 MB page, a third of its read).
DEEPER_THAN_PYTHON: list[tuple[str, bytes]] = [
    (
        "an unknown member nested 1,000 deep",
        one_point(tail=',"x":' + "[" * 1000 + "]" * 1000),
    ),
    (
        "the same, 1,000 objects deep",
        one_point(tail=',"x":' + '{"a":' * 1000 + "1" + "}" * 1000),
    ),
]

# Pages both readers must read alike; the first four made the per-object reader raise (fixed:
# the point is refused with its reason), so they are kept out of the fuzz pools.
ALIKE: list[tuple[str, bytes]] = [
    (
        "doubleValue of 400 digits: OverflowError escaped point_value (the read failed)",
        one_point('{"doubleValue":1' + "0" * 400 + "}"),
    ),
    (
        "int64Value of 400 digits: OverflowError escaped point_value (the read failed)",
        one_point('{"int64Value":"1' + "0" * 400 + '"}'),
    ),
    (
        "endTime 0001-01-01T00:00:00Z: OverflowError escaped _check's message (the read failed)",
        one_point().replace(b"2026-10-01T10:01:00Z", b"0001-01-01T00:00:00Z"),
    ),
    (
        "endTime 0001-01-01T00:00:00+05:00: OverflowError escaped _minute_us (the read failed)",
        one_point().replace(b"2026-10-01T10:01:00Z", b"0001-01-01T00:00:00+05:00"),
    ),
    (
        "NaN, Infinity and -Infinity in an unknown member",
        one_point(tail=',"x":[NaN,Infinity,-Infinity]'),
    ),
    ("doubleValue NaN (a missing reading)", one_point('{"doubleValue":NaN}')),
    ("doubleValue -0.0 (a float token: -0.0 to both)", one_point('{"doubleValue":-0.0}')),
    ("an unknown member nested 500 deep", one_point(tail=',"x":' + "[" * 500 + "]" * 500)),
    ("an unknown member of 4,000 digits", one_point(tail=',"x":1' + "0" * 4000)),
    ("a BOM", b"\xef\xbb\xbf" + one_point()),
    ("two BOMs", b"\xef\xbb\xbf\xef\xbb\xbf" + one_point()),
    ("CRLF between members", one_point().replace(b",", b",\r\n")),
    ("an empty file", b""),
    ("a top-level array", b"[" + one_point() + b"]"),
    ("two objects", one_point() + b"\n" + one_point()),
    ("trailing garbage", one_point() + b" x"),
    ("a NUL after the object", one_point() + b"\x00"),
    ("a read key twice", one_point('{"doubleValue":50,"doubleValue":12.5}')),
    ("an unread key twice", one_point(tail=',"unit":"%","unit":5')),
    ("timeSeries twice", one_point(tail=',"timeSeries":[]')),
    ("an escape in a key", one_point().replace(b'"timeSeries"', b'"time\\u0053eries"')),
    ("an escaped slash in a value", one_point().replace(b"googleapis.com/", b"googleapis.com\\/")),
    ("UTF-8 in a label", one_point().replace(b'"p"', '"é"'.encode())),
    ("an invalid byte in a label", one_point().replace(b'"p"', b'"\xff"')),
    ("a number as a string", one_point('{"doubleValue":"12.5"}')),
    ("an int64Value as a number", one_point('{"int64Value":12}')),
    ("an int64Value with a plus", one_point('{"int64Value":"+12"}')),
    ("an int64Value of 19 digits", one_point('{"int64Value":"1000000000000000000"}')),
    ("a label as a number", one_point().replace(b'"accelerator_id":"0"', b'"accelerator_id":0')),
    ("a missing resource label", one_point().replace(b'"node_id":"n",', b"")),
    ("an endTime with no zone", one_point().replace(b"10:01:00Z", b"10:01:00")),
    ("an endTime of 9 fraction digits", one_point().replace(b"10:01:00Z", b"10:01:00.123456789Z")),
    ("a percentage past 100.5", one_point('{"doubleValue":100.50000000000002}')),
    ("executionErrors", one_point(tail=',"executionErrors":[{"code":14}]')),
    ("unreachable", one_point(tail=',"unreachable":["us-east1"]')),
    ("no timeSeries", b'{"nextPageToken":"x"}'),
    ("empty timeSeries", b'{"timeSeries":[]}'),
]


# -- building pages ------------------------------------------------------------------------


class _Drop:
    """A member left out (a deep copy of it is itself)."""

    def __deepcopy__(self, memo: dict) -> _Drop:
        return self


DROP = _Drop()


_INDENTS: list[int | str] = [1, 2, "\t"]


def dumps(page: Any, rng: random.Random, compact: bool = False) -> str:
    """A page as JSON text, in one of the spellings a writer may use."""
    style = 0.0 if compact else rng.random()
    ascii_only = compact or rng.random() < 0.7
    if style < 0.6:
        return dumps_with_raws(page, separators=(",", ":"), ensure_ascii=ascii_only)
    if style < 0.8:
        return dumps_with_raws(page, ensure_ascii=ascii_only)
    if style < 0.9:
        return dumps_with_raws(page, indent=rng.choice(_INDENTS), ensure_ascii=ascii_only)
    return dumps_with_raws(page, separators=(" ,\n", " :\t"), ensure_ascii=ascii_only)


def _set(page: Any, path: tuple, value: Any) -> None:
    """Set `path` (keys and list indexes) when its parent exists; DROP removes the member."""
    node = page
    for part in path[:-1]:
        if (
            isinstance(node, dict)
            and part in node
            or isinstance(node, list)
            and (isinstance(part, int) and part < len(node))
        ):
            node = node[part]
        else:
            return
    last = path[-1]
    if isinstance(node, dict):
        if value is DROP:
            node.pop(last, None)
        else:
            node[last] = value
    elif isinstance(node, list) and isinstance(last, int) and last < len(node):
        if value is DROP:
            del node[last]
        else:
            node[last] = value


def _minutes(first: datetime, count: int) -> list[datetime]:
    return [first + timedelta(minutes=i) for i in range(count)]


def base_series(rng: random.Random) -> list[dict[str, Any]]:
    """Every kind of series the readers tell apart, points on both sides of midnight."""
    minutes = _minutes(MIDNIGHT - timedelta(minutes=4), 8)

    def pct() -> list[tuple[datetime, float | None]]:
        return [(m, round(rng.uniform(0, 100), rng.randrange(0, 8))) for m in minutes]

    def hbm() -> list[tuple[datetime, int | None]]:
        return [(m, rng.randrange(0, 96 * 2**30)) for m in minutes]

    series = []
    metrics = {
        "duty_cycle": pct,
        "tensorcore_utilization": pct,
        "memory_bandwidth_utilization": pct,
        "memory_used": hbm,
        "memory_total": hbm,
    }
    for chip in ("0", "1"):
        for name, values in metrics.items():
            series.append(
                {
                    "metric_type": TPU + name,
                    "metric_labels": {"accelerator_id": chip},
                    "resource_type": "tpu_worker",
                    "resource_labels": NODE,
                    "points": values(),
                }
            )
    for labels in (GCE_KNOWN, GCE_BY_PROJECT, GCE_UNKNOWN):
        for name in ("duty_cycle", "memory_used"):
            series.append(
                {
                    "metric_type": TPU + name,
                    "metric_labels": {"accelerator_id": "3"},
                    "resource_type": GCE,
                    "resource_labels": labels,
                    "points": metrics[name](),
                }
            )
    for make, chip in (("cloud-tpu", "4711-2"), ("nvidia", "0"), ("NVIDIA", "1"), ("amd", "0")):
        for name in ("duty_cycle", "memory_total"):
            series.append(
                {
                    "metric_type": K8S + name,
                    "metric_labels": {"make": make, "accelerator_id": chip, "model": "x"},
                    "resource_type": "k8s_node",
                    "resource_labels": GKE,
                    "points": metrics[name](),
                }
            )
    series += [
        {
            "metric_type": TPU + "duty_cycle",
            "metric_labels": {"accelerator_id": "2"},
            "resource_type": "gce_instance",
            "resource_labels": {"project_id": "my-project", "zone": "z", "instance_id": "1"},
            "points": pct(),
        },
        {
            "metric_type": "tpu.googleapis.com/network/received_bytes_count",
            "resource_type": "tpu_worker",
            "resource_labels": NODE,
            "points": hbm(),
        },
        {
            "metric_type": "compute.googleapis.com/instance/cpu/utilization",
            "resource_type": "gce_instance",
            "resource_labels": {"project_id": "my-project", "zone": "z"},
            "value_type": "DOUBLE",
            "points": pct(),
        },
        {
            "metric_type": TPU + "duty_cycle",
            "metric_labels": {"accelerator_id": "5"},
            "resource_type": "tpu_worker",
            "resource_labels": NODE,
            "points": [(minutes[0], float("nan")), (minutes[1], 50.0)],
        },
    ]
    rng.shuffle(series)
    return series


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> list[dict[str, Any]]:
    """The base pages (about 30 series, 8 points each, 4 series a page) as JSON objects."""
    folder = tmp_path_factory.mktemp("base")
    paths = write_pages(folder, base_series(random.Random(SEED)), page_size=4)
    return [json.loads(p.read_text()) for p in paths]


# -- structural changes ----------------------------------------------------------------------

DOUBLE_TOKENS = [
    "12.5", "0", "-0", "-0.0", "0.0", "0e0", "-0e-5", "100", "100.5", "100.50000000000001",
    "100.49999999999999", "100.500000000000000000001", "1e2", "1E2", "1e+2", "5e-324",
    "2.4703282292062328e-324", "2.4703282292062327e-324", "4.9406564584124654e-324",
    "2.2250738585072011e-308", "2.2250738585072012e-308", "0.1000000000000000055511151231257827",
    "0.30000000000000004", "0.3000000000000000166533453693773481063544750213623046875",
    "1.00000000000000011102230246251565404236316680908203125", "9007199254740993",
    "9223372036854775807", "9223372036854775808", "9223372036854774784", "9.2233720368547758e18",
    "1e308", "1.7976931348623157e308", "1.7976931348623159e308", "1e309", "-1e309", "1e-400",
    "NaN", "-NaN", "Infinity", "-Infinity", "Inf", "-Inf", "nan", "01", "+1", ".5", "5.", "1e",
    "-", "0x10", "-1", "1e-7", "123456789.123456789123456789", "99.999999999999999999999",
    "true", "12.5.5", "-1e-400", "-0e0", "-0.0e5", "-00",
]  # fmt: skip
DOUBLE_STRINGS = ["NaN", "Infinity", "-Infinity", "12.5", " 12.5", "1e2", "", "abc", "-0", "nan"]
INT64_STRINGS = [
    "5", "+5", " 5", "5 ", "1_000", "007", "-0", "-5", "0", "9" * 18, "1" + "0" * 18, "9" * 19,
    "9223372036854775807", "9223372036854775808", "9" * 25, "", "abc", "5.0", "1e3", "0x10",
    "\u0663", "１", "00000000000000000001", "-" + "9" * 18,
]  # fmt: skip
INT64_TOKENS = ["5", "5.7", "-1", "1e3", "true", "NaN", "12345678901234567890", "0", "-0", "[]"]
OTHERS: list[Any] = [None, True, False, [], {}, [1], {"a": 1}, 0, 1.5, ""]
END_TIMES: list[Any] = [
    "2026-10-01T10:01:00Z", "2026-10-01T10:01:00.5Z", "2026-10-01T10:01:00.1Z",
    "2026-10-01T10:01:00.12Z", "2026-10-01T10:01:00.123Z", "2026-10-01T10:01:00.1234Z",
    "2026-10-01T10:01:00.12345Z", "2026-10-01T10:01:00.123456Z", "2026-10-01T10:01:00.1234567Z",
    "2026-10-01T10:01:00.12345678Z", "2026-10-01T10:01:00.123456789Z",
    "2026-10-01T10:01:00.1234567891Z", "2026-10-01T10:01:00.000000001Z", "2026-10-01T10:01:00.Z",
    "2026-10-01T10:01:00+05:30", "2026-10-01T10:01:00-08:00", "2026-10-01T10:01:00-00:00",
    "2026-10-01T10:01:00.999999999+05:30", "2026-10-01T10:01:00+0530", "2026-10-01T10:01:00",
    "2026-10-01t10:01:00z", "2026-10-01T10:01:00z", "2026-10-01 10:01:00Z", "2026-10-01T10:01Z",
    "2026-10-01", "2026-10-02", "2026-10-01T24:00:00Z", "2026-10-01T10:01:60Z",
    "1999-12-31T23:59:00Z", "2000-01-01T00:00:00Z", "2000-01-01T00:01:00Z",
    "2100-01-01T00:00:00Z", "2100-01-01T00:01:00Z", "2100-01-01T00:00:00.000001Z",
    "2026-10-02T00:00:00Z", "2026-10-02T00:00:00.000001Z", "20261001T100100Z", "", "yesterday",
    "2026-10-01T10:01:00,5Z", "2026-10-01T10:01:00Z ", " 2026-10-01T10:01:00Z",
    "9999-12-31T23:59:59Z", "0001-01-01T00:01:00Z", "2026-10-01T10:01:00+24:00",
    "2026-10-01T10:01:00.5+00:00", "2026-02-30T00:00:00Z", 1790000000, None, {}, [],
]  # fmt: skip
LABEL_VALUES: list[Any] = [
    "0",
    "",
    " ",
    "x" * 300,
    5,
    1.5,
    1e2,
    True,
    None,
    [],
    {},
    "é",
    "a\\b",
    "a/b",
]
METRIC_TYPES: list[Any] = [
    TPU + "duty_cycle", TPU + "memory_total", K8S + "memory_used", K8S + "tensorcore_utilization",
    TPU + "network/received_bytes_count", TPU, TPU + "duty_cycle/x", "TPU.googleapis.com/x",
    "", None, 5, [], {}, "compute.googleapis.com/instance/cpu/utilization",
]  # fmt: skip
RESOURCE_TYPES: list[Any] = [
    "tpu_worker",
    GCE,
    "k8s_node",
    "gce_instance",
    "",
    None,
    5,
    "TPU_WORKER",
]
MAKES: list[Any] = ["nvidia", "NVIDIA", "amd", "cloud-tpu", "", 5, None, "Nvidia "]
NESTED: list[Any] = [
    1, "x", None, [], {}, {"k": [1, None]}, 1.5, True, [{"a": {"b": []}}], Raw("NaN"),
    Raw("Infinity"), Raw("-Infinity"), Raw("Inf"), Raw("-Inf"), Raw("-NaN"), Raw("-0"),
    Raw("1" + "0" * 400), Raw("1e400"), Raw("nan"),
]  # fmt: skip
READ_LABELS = {
    "metric": ("accelerator_id", "make", "model"),
    "resource": ("project_id", "zone", "node_id", "worker_id", "resource_container", "location",
                 "node_name", "cluster_name"),
}  # fmt: skip


def _deep(depth: int) -> Raw:
    return Raw("[" * depth + "]" * depth)


def _point_path(page: dict, rng: random.Random) -> tuple | None:
    series = page.get("timeSeries")
    if not isinstance(series, list) or not series:
        return None
    s = rng.randrange(len(series))
    points = series[s].get("points") if isinstance(series[s], dict) else None
    if not isinstance(points, list) or not points:
        return None
    return ("timeSeries", s, "points", rng.randrange(len(points)))


def _series_path(page: dict, rng: random.Random) -> tuple | None:
    series = page.get("timeSeries")
    if not isinstance(series, list) or not series:
        return None
    return ("timeSeries", rng.randrange(len(series)))


def _double(rng: random.Random) -> Any:
    pick = rng.random()
    if pick < 0.6:
        return Raw(rng.choice(DOUBLE_TOKENS))
    if pick < 0.85:
        return rng.choice(DOUBLE_STRINGS)
    return copy.deepcopy(rng.choice(OTHERS))


def _int64(rng: random.Random) -> Any:
    pick = rng.random()
    if pick < 0.65:
        return rng.choice(INT64_STRINGS)
    if pick < 0.9:
        return Raw(rng.choice(INT64_TOKENS))
    return copy.deepcopy(rng.choice(OTHERS))


def mutate(page: dict, rng: random.Random) -> Any:
    """One to three structural changes to a page (a deep copy)."""
    page = copy.deepcopy(page)
    for _ in range(rng.choice((1, 1, 2, 3))):
        kind = rng.randrange(16)
        point, series = _point_path(page, rng), _series_path(page, rng)
        if kind == 0 and point:
            _set(page, (*point, "value"), {"doubleValue": _double(rng)})
        elif kind == 1 and point:
            _set(page, (*point, "value"), {"int64Value": _int64(rng)})
        elif kind == 2 and point:
            _set(page, (*point, "interval", "endTime"), copy.deepcopy(rng.choice(END_TIMES)))
        elif kind == 3:  # anything null, absent, empty or zero
            paths = all_paths(page)
            if paths:
                _set(page, rng.choice(paths), rng.choice([DROP, DROP, None, None, "", [], {}, 0]))
        elif kind == 4 and series:
            part = rng.choice(("metric", "resource"))
            if rng.random() < 0.7:
                name = rng.choice(READ_LABELS[part])
                value = copy.deepcopy(rng.choice([DROP, *LABEL_VALUES]))
                _set(page, (*series, part, "labels", name), value)
            else:
                _set(page, (*series, part, "labels"), rng.choice([DROP, None, [], "", [1], 5, {}]))
        elif kind == 5:
            name = rng.choice(("executionErrors", "unreachable"))
            page[name] = copy.deepcopy(
                rng.choice([[], None, [{"code": 14, "message": "down"}], ["us-east1"], "x", {}])
            )
        elif kind == 6:
            value = rng.choice([DROP, [], None, {}, "", [1], [None], [{}], 0, [[]]])
            _set(page, ("timeSeries",), copy.deepcopy(value))
        elif kind == 7:  # an unknown member anywhere (sometimes nested past any parser's depth)
            dicts = [()] + [p for p in all_paths(page) if isinstance(_get(page, p), dict)]
            where = rng.choice(dicts)
            value = _deep(rng.choice([10, 100, 500])) if rng.random() < 0.1 else None
            name = rng.choice(["new", "zz", "Value", "doubleValue2", "labels_"])
            _set(page, (*where, name), value or copy.deepcopy(rng.choice(NESTED)))
        elif kind == 8:
            page = shuffled(page, rng)
        elif kind == 9 and series:
            _set(page, (*series, "metric", "type"), copy.deepcopy(rng.choice(METRIC_TYPES)))
        elif kind == 10 and series:
            _set(page, (*series, "resource", "type"), copy.deepcopy(rng.choice(RESOURCE_TYPES)))
        elif kind == 11 and series:
            _set(page, (*series, "metric", "labels", "make"), rng.choice(MAKES))
        elif kind == 12 and point:
            _set(page, (*point, "value"), rng.choice(_VALUES)(rng))
        elif kind == 13 and series:
            if rng.random() < 0.5:
                _set(page, series, copy.deepcopy(rng.choice([5, "x", [], None, {}])))
            else:
                value = rng.choice([{}, "", 0, [None], [5], [{}], [], False])
                _set(page, (*series, "points"), copy.deepcopy(value))
        elif kind == 14 and series and point:  # a series or a point twice (same chip-minute)
            if rng.random() < 0.5:
                page["timeSeries"].append(copy.deepcopy(_get(page, series)))
            else:
                target = _get(page, (*series, "points"))
                if isinstance(target, list):
                    target.insert(rng.randrange(len(target) + 1), copy.deepcopy(_get(page, point)))
        elif kind == 15 and point:  # point-level members other than value and endTime
            _set(page, (*point, "interval", "startTime"), copy.deepcopy(rng.choice(END_TIMES)))
            _set(page, (*point, rng.choice(("interval", "value"))), rng.choice(OTHERS + [DROP]))
    return page


_VALUES = [
    lambda rng: {"doubleValue": _double(rng), "int64Value": _int64(rng)},
    lambda rng: {"int64Value": _int64(rng), "doubleValue": _double(rng)},
    lambda rng: {},
    lambda rng: {"stringValue": "x"},
    lambda rng: {"boolValue": True},
    lambda rng: {"distributionValue": {"count": "1"}},
    lambda rng: {"doubleValue": Raw("1.5"), "stringValue": "x"},
]


def _get(page: Any, path: tuple) -> Any:
    """The value at `path`, or None where the path leads nowhere (a series made a number)."""
    for part in path:
        inside = isinstance(page, dict) and part in page
        if not (inside or isinstance(page, list) and isinstance(part, int) and part < len(page)):
            return None
        page = page[part]
    return page


# -- changes to the text -----------------------------------------------------------------------

DUPLICATES = [
    ('"doubleValue":', '"doubleValue":99.5,"doubleValue":'),
    ('"doubleValue":', '"doubleValue":"x","doubleValue":'),
    ('"int64Value":', '"int64Value":"77","int64Value":'),
    ('"endTime":', '"endTime":"2026-10-01T00:01:00Z","endTime":'),
    ('"accelerator_id":', '"accelerator_id":"9","accelerator_id":'),
    ('"type":', '"type":"gce_instance","type":'),
    ('"metricKind":', '"metricKind":5,"metricKind":'),
    ('"points":', '"points":[],"points":'),
    ('"labels":', '"labels":{},"labels":'),
    ('{"timeSeries":', '{"timeSeries":[],"timeSeries":'),
    ('"interval":', '"interval":{"endTime":"2026-10-01T00:01:00Z"},"interval":'),
]
ESCAPES = [
    ('"timeSeries"', '"time\\u0053eries"'),
    ('"doubleValue"', '"double\\u0056alue"'),
    ('"endTime"', '"end\\u0054ime"'),
    ('"accelerator_id":"', '"accelerator_id":"\\u0030'),
    ('Z"', '\\u005a"'),
    ("googleapis.com/", "googleapis.com\\/"),
    ('"int64Value":"', '"int64Value":"\\u0031'),
    ('"my-project"', '"my-proj\\u00e9ct"'),
    ('"my-project"', '"my-proj\\ud800ct"'),
    ('"tpu_worker"', '"tpu\\u005fworker"'),
]
BYTES = [
    (b'"my-project"', '"my-projé"'.encode()),
    (b'"my-project"', b'"my-proj\xe9"'),
    (b'"my-project"', b'"my-proj\xff"'),
    (b'"my-project"', b'"my-proj\xed\xa0\x80"'),
    (b'"accelerator_id":"0"', '"accelerator_id":"٠"'.encode()),
    (b'"tpu_worker"', b'"tpu_worker\t"'),
    (b'"tpu_worker"', b'"tpu_worker\x01"'),
    (b'"tpu_worker"', b'"tpu_worker\x7f"'),
    (b'"tpu_worker"', b'"tpu_worker\x00"'),
    (b'"GAUGE"', '"GAUGE\u2028"'.encode()),
]
TAILS = [
    b" x",
    b"}",
    b",",
    b"\x00",
    b"{}",
    b"\n{}",
    b"[]",
    b" 5",
    b" null",
    b"\n\n",
    b"\t \r\n",
    b"]",
]


def text_mutate(data: bytes, rng: random.Random) -> bytes:
    """Changes to a page's bytes."""
    pick = rng.randrange(11)
    text = data.decode("utf-8", "surrogateescape")
    if pick == 0:
        old, new = rng.choice(DUPLICATES)
        return text.replace(old, new, 1).encode("utf-8", "surrogateescape")
    if pick == 1:
        old, new = rng.choice(ESCAPES)
        return text.replace(old, new, rng.choice((1, -1))).encode("utf-8", "surrogateescape")
    if pick == 2:
        old_b, new_b = rng.choice(BYTES)
        return data.replace(old_b, new_b, 1)
    if pick == 3:
        return rng.choice([b"\xef\xbb\xbf", b"\xef\xbb\xbf\xef\xbb\xbf", b" ", b"\n"]) + data
    if pick == 4:
        return data.replace(b"\n", b"\r\n").replace(b",", b",\r\n", rng.randrange(0, 5))
    if pick == 5:
        return data + rng.choice(TAILS)
    if pick == 6:
        return data + rng.choice([b"\n", b"", b" "]) + data
    if pick == 7:
        return data[: rng.randrange(len(data) + 1)]
    if pick == 8:
        return rng.choice([b"", b" ", b"\xef\xbb\xbf", b"null", b"[" + data + b"]", b'"x"', b"5"])
    if pick == 9:
        return data.replace(b":", rng.choice([b": ", b" :", b":\n", b":\x0b", b":\x0c"]), 3)
    return data.replace(b",", rng.choice([b" ,", b",\t", b", ,"]), rng.randrange(1, 4))


def fuzz_pages(base: list[dict], seed: int, count: int) -> list[bytes]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        page = rng.choice(base)
        if rng.random() < 0.85:
            page = mutate(page, rng)
        data = dumps(page, rng).encode("utf-8", "surrogatepass")
        if rng.random() < 0.25:
            data = text_mutate(data, rng)
        out.append(data)
    return out


# -- changes a plain page may carry ------------------------------------------------------------


def _digits(rng: random.Random, low: int, high: int) -> str:
    """A decimal of `low`..`high` significant digits in [0, 100] (hard to round)."""
    count = rng.randrange(low, high + 1)
    digits = str(rng.randrange(10 ** (count - 1), 10**count))
    point = rng.randrange(0, 3)
    return (digits[:point] or "0") + "." + digits[point:]


PLAIN_PCT = [
    "0", "0.0", "0e0", "100", "100.5", "100.4999999999999999999", "100.50000000000000001",
    "5e-324", "4.9e-324", "2.2250738585072011e-308", "1e-300", "99.99999999999999",
    "99.999999999999999999999", "0.1", "0.30000000000000004", "1E2", "1.005e1",
]  # fmt: skip
PLAIN_BYTES_DOUBLE = [
    "0", "0.5", "1.5", "2.5", "9223372036854774784", "9.223372036854774e18",
    "9223372036854775295", "4503599627370496.5", "9007199254740993", "1e18", "1e-320",
    "123456789012345678.5",
]  # fmt: skip
PLAIN_INT64 = [
    "0", "-0", "1", "007", "000000000000000000", "999999999999999999", "9007199254740993",
    "123456789012345678", "36028797018963969", "17179869184", "103079215104",
]  # fmt: skip


def _plain_end(rng: random.Random) -> str:
    base = datetime(2026, 10, 1, 23, 50) + timedelta(seconds=rng.randrange(0, 1200))
    text = base.strftime("%Y-%m-%dT%H:%M:%S")
    if rng.random() < 0.5:
        text += "." + str(rng.randrange(10**9)).zfill(9)[: rng.randrange(1, 10)]
    return text + rng.choice(["Z", "Z", "+00:00", "+05:30", "-08:00", ""])


def _plain_value(column: str, rng: random.Random) -> dict[str, Any]:
    if column.startswith("memory_used") or column.startswith("memory_total"):
        if rng.random() < 0.5:
            return {"int64Value": rng.choice(PLAIN_INT64 + [str(rng.randrange(10**18))])}
        return {"doubleValue": Raw(rng.choice(PLAIN_BYTES_DOUBLE))}
    if rng.random() < 0.5:
        return {"doubleValue": Raw(rng.choice(PLAIN_PCT))}
    if rng.random() < 0.15:
        return {"int64Value": str(rng.randrange(101))}
    return {"doubleValue": Raw(_digits(rng, 17, 25))}


def plain_mutate(page: dict, rng: random.Random) -> dict:
    """Changes of value a page the columnar path takes may carry (no null, no escape)."""
    page = copy.deepcopy(page)
    for series in page["timeSeries"]:
        column = series["metric"]["type"].rsplit("/", 1)[-1]
        for point in series["points"]:
            if rng.random() < 0.5:
                point["value"] = _plain_value(column, rng)
            if rng.random() < 0.4:
                point["interval"]["endTime"] = _plain_end(rng)
        if series["points"] and rng.random() < 0.3:  # several points in one chip-minute
            again = copy.deepcopy(rng.choice(series["points"]))
            again["value"] = _plain_value(column, rng)
            series["points"].insert(rng.randrange(len(series["points"]) + 1), again)
    if page["timeSeries"] and rng.random() < 0.3:  # a chip-metric's series split in two
        page["timeSeries"].append(copy.deepcopy(rng.choice(page["timeSeries"])))
    if rng.random() < 0.3:
        page = shuffled(page, rng)
    if rng.random() < 0.2:
        page["unit"] = rng.choice(["%", "By", 5, [1, 2], {"a": {"b": 1}}])
    return page


def plain_pages(base: list[dict], seed: int, count: int) -> list[bytes]:
    rng = random.Random(seed)
    usable = [p for p in base if "NaN" not in json.dumps(p) and "null" not in json.dumps(p)]
    return [
        dumps(plain_mutate(rng.choice(usable), rng), rng, compact=True).encode()
        for _ in range(count)
    ]


# -- the comparison ----------------------------------------------------------------------------


def _read(paths: list[Path], inventory: Inventory | None, columns: bool) -> Any:
    builder = SampleBuilder(inventory)
    try:
        for path in paths:
            add_page_file(builder, path, columns=columns)
        return builder.finish()
    except Exception as exc:  # the reference may raise (a defect): both must raise alike
        return f"raised {type(exc).__name__}: {exc}"


def _cell(value: Any) -> Any:
    """A cell compared bit for bit (a float's sign of zero included)."""
    return struct.pack("<d", value).hex() if isinstance(value, float) else value


def diff_outcomes(a: Any, b: Any) -> list[str]:
    """Every way two `finish()` results (or raised errors) differ, one line each."""
    if isinstance(a, str) or isinstance(b, str):
        return [] if a == b else [f"per-object {str(a)[:200]!r} != columnar {str(b)[:200]!r}"]
    (ta, qa, na), (tb, qb, nb) = a, b
    found = []
    if ta.schema != tb.schema:
        found.append(f"schema: {ta.schema} != {tb.schema}")
    rows_a, rows_b = ta.to_pylist(), tb.to_pylist()
    if len(rows_a) != len(rows_b):
        found.append(f"rows: {len(rows_a)} != {len(rows_b)}")
    for n, (ra, rb) in enumerate(zip(rows_a, rows_b, strict=False)):
        cols = [c for c in ra if _cell(ra[c]) != _cell(rb.get(c))]
        if cols:
            found.append(f"row {n}: " + "; ".join(f"{c}: {ra[c]!r} != {rb[c]!r}" for c in cols[:4]))
    if not found and not ta.equals(tb):
        found.append("tables differ (Table.equals)")
    if qa != qb:
        found.append(
            f"quarantined: {[(q.line, q.reason) for q in qa][:5]} != {[(q.line, q.reason) for q in qb][:5]}"
        )
    if na != nb:
        found.append(f"notes: {na[:3]} != {nb[:3]}")
    return found


def differences(paths: list[Path], inventory: Inventory | None) -> list[str]:
    """Every difference, and a read that raised at all (no input may crash a read)."""
    reference, columns = _read(paths, inventory, False), _read(paths, inventory, True)
    raised = [
        f"the {how} read {outcome}"
        for how, outcome in (("per-object", reference), ("columnar", columns))
        if isinstance(outcome, str)
    ]
    return raised + diff_outcomes(reference, columns)


def taken(data: bytes, inventory: Inventory | None) -> bool:
    """Whether the columnar path reads the page itself."""
    return read_page(SampleBuilder(inventory), data)


def compare_each(tmp: Path, datas: list[bytes], rng: random.Random) -> tuple[list[str], int]:
    """Each page alone, then all of them into one builder; (differences, pages taken)."""
    found, fast, paths = [], 0, []
    for n, data in enumerate(datas):
        path = tmp / f"p{n:04d}.json"
        path.write_bytes(data)
        paths.append(path)
        inventory = INVENTORY if rng.random() < 0.5 else None
        for line in differences([path], inventory):
            found.append(
                f"{path.name} ({'inventory' if inventory else 'no inventory'}): {line}"
                f"\n    {data[:300]!r}"
            )
        fast += taken(data, inventory)
    for line in differences(paths, INVENTORY):
        found.append(f"all {len(paths)} pages in one builder: {line}")
    return found, fast


# -- the tests ---------------------------------------------------------------------------------


@pytest.mark.parametrize("case", range(4))
def test_fuzzed_pages_read_alike(base, tmp_path, case):
    """Mutated pages, each alone and all in one builder, with and without an inventory."""
    datas = fuzz_pages(base, SEED + case, PAGES_PER_CASE)
    found, fast = compare_each(tmp_path, datas, random.Random(SEED + 100 + case))
    assert not found, "\n".join(found[:40])
    assert 5 < fast < len(datas)  # both paths are exercised


@pytest.mark.parametrize("case", range(2))
def test_plain_changes_read_alike_in_columns(base, tmp_path, case):
    """Values at the column limits, hard-to-round decimals, many distinct end times, INT64 and
    DOUBLE mixed, several points a chip-minute: every page taken in columns, read alike."""
    datas = plain_pages(base, SEED + 30 + case, 40)
    found, fast = compare_each(tmp_path, datas, random.Random(SEED + 130 + case))
    assert not found, "\n".join(found[:40])
    assert fast == len(datas)


def test_the_base_pages_are_taken_in_columns_and_read_alike(base, tmp_path):
    """write_pages' own pages (but the one holding a "NaN" string): taken, and read alike."""
    datas = [json.dumps(page).encode() for page in base]
    found, fast = compare_each(tmp_path, datas, random.Random(SEED))
    assert not found, "\n".join(found)
    assert fast == len(datas) - 1


def test_pages_by_day_reads_alike(base, tmp_path):
    """A day at a time: each day's rows and refusals and the rest are the same either way."""
    datas = fuzz_pages(base, SEED + 50, 30) + plain_pages(base, SEED + 51, 10)
    for n, data in enumerate(datas):
        (tmp_path / f"p{n:04d}.json").write_bytes(data)

    def by_day(columns: bool) -> list[Any]:
        pages = PagesByDay([tmp_path], inventory=INVENTORY, columns=columns)
        days = [pages.day(d) for d in (DAY1, DAY2)]
        return [(t, q, []) for t, q in days] + [pages.rest()]

    found = [
        f"{part}: {line}"
        for part, a, b in zip(("day 1", "day 2", "rest"), by_day(False), by_day(True), strict=True)
        for line in diff_outcomes(a, b)
    ]
    assert not found, "\n".join(found)


@pytest.mark.parametrize(("why", "data"), REGRESSIONS, ids=[w[:40] for w, _ in REGRESSIONS])
def test_regressions_read_alike(tmp_path, why, data):
    path = tmp_path / "page.json"
    path.write_bytes(data)
    assert not differences([path], None), why
    assert not isinstance(_read([path], None, False), str), why  # no read raises


@pytest.mark.parametrize(("why", "data"), ALIKE, ids=[w[:40] for w, _ in ALIKE])
def test_hand_cases_read_alike(tmp_path, why, data):
    path = tmp_path / "page.json"
    path.write_bytes(data)
    assert not differences([path], None), why
    assert not isinstance(_read([path], None, False), str), why  # no read raises


def test_the_regression_base_page_is_taken_in_columns():
    """So each regression differs from a page the columnar path reads by its one change."""
    assert taken(one_point(), None)


@pytest.mark.parametrize(
    ("why", "data"), DEEPER_THAN_PYTHON, ids=[w[:40] for w, _ in DEEPER_THAN_PYTHON]
)
def test_pages_deeper_than_pythons_json_are_loaded_in_columns(tmp_path, why, data):
    path = tmp_path / "page.json"
    path.write_bytes(data)
    columns, objects = _read([path], None, True), _read([path], None, False)
    assert columns[0].column("duty_cycle_pct").to_pylist() == [12.5], why
    assert columns[1:] == ([], [])
    assert objects[0].num_rows == 0
    assert [q.reason.split(":")[0] for q in objects[1]] == ["page is not JSON"]
    assert "recursion" in objects[1][0].reason
