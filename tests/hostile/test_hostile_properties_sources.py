"""Random mutations of the other real-format inputs (gateway request logs, provider usage and
cost pages, Kubernetes pod lists, FOCUS CSV rows, Slurm `sacct --json`), each mutation a
value a hostile or broken writer puts where a field was: deep nesting, huge numbers, times
outside any plausible window. Whatever the mutation, no exception escapes the reader, the
read does a bounded amount of work (hostile.bounded), and every input is accounted for."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flopledger.collectors.focus.read import read_focus_files
from flopledger.collectors.inference.gateway import read_gateway_logs
from flopledger.collectors.inference.provider_export import read_provider_export
from flopledger.collectors.jobs.read import read_jobs_files
from flopledger.collectors.kubernetes.read import read_pod_files
from tests.collectors.kubernetes.k8s_fakes import pod
from tests.hostile.hostile import bounded

FIXTURES = Path(__file__).parent.parent / "fixtures"
DEEP = "__DEEP__"  # replaced in the written text by arrays nested past Python's stack
DEPTH = 30_000

# What a hostile writer puts where a field was; DEEP becomes 30,000 nested arrays on disk.
ODD = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["", "NaN", "1e400", "1e30", "9999-12-31T23:00:00-05:00",
                     "9999-12-31 23:59:59 UTC", "0001-01-01T00:30:00+01:00", "253402300799",
                     "-62135596800", "1970-01-01T00:00:00Z", "llm\ufffd", "\x00", DEEP]),
    st.text(max_size=12),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)  # fmt: skip

SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _text(record) -> str:
    """JSON text of `record` with each DEEP value written as nested arrays."""
    text = json.dumps(record, default=str)
    return text.replace(json.dumps(DEEP), "[" * DEPTH + "]" * DEPTH)


def _set(record: dict, path: tuple, value) -> dict:
    """The record with the value at `path` replaced; where an earlier mutation left no such
    path (a map become a list), the first part of the path that is there takes the value."""
    out = json.loads(json.dumps(record))
    node = out
    for key in path[:-1]:
        try:
            child = node[key]
        except (KeyError, IndexError, TypeError):
            child = None
        if not isinstance(child, (dict, list)):
            break
        node = child
    else:
        try:
            node[path[-1]] = value
            return out
        except (IndexError, TypeError):
            pass
    out[path[0]] = value
    return out


def _paths(value, prefix: tuple = ()) -> list[tuple]:
    found = []
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, child in items:
        found.append((*prefix, key))
        if isinstance(child, (dict, list)):
            found += _paths(child, (*prefix, key))
    return found


def _mutated(base: dict, mutations) -> dict:
    for path, value in mutations:
        base = _set(base, path, value)
    return base


def _mutations(paths):
    return st.lists(st.tuples(st.sampled_from(paths), ODD), min_size=1, max_size=4)


REQUEST = {
    "request_id": "base",
    "call_type": "acompletion",
    "startTime": "2026-10-01T10:00:00Z",
    "endTime": "2026-10-01T10:00:02Z",
    "completionStartTime": "2026-10-01T10:00:01Z",
    "custom_llm_provider": "together_ai",
    "model": "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo",
    "model_group": "llama-70b",
    "prompt_tokens": 12,
    "completion_tokens": 3,
    "spend": 0.00001,
    "cache_hit": "False",
    "status": "success",
    "request_tags": ["workload_class:online_inference"],
    "metadata": {"user_api_key_team_alias": "llm",
                 "usage_object": {"prompt_tokens_details": {"cached_tokens": 2}}},
}  # fmt: skip


@SETTINGS
@given(st.lists(_mutations(_paths(REQUEST)), min_size=1, max_size=5))
def test_mutated_gateway_requests(tmp_path_factory, batches):
    records = [REQUEST] + [
        _mutated({**REQUEST, "request_id": f"r{i}"}, m) for i, m in enumerate(batches)
    ]
    path = tmp_path_factory.mktemp("g") / "gateway.ndjson"
    path.write_text("".join(_text(r) + "\n" for r in records), encoding="utf-8",
                    errors="surrogateescape")  # fmt: skip
    table, bad = bounded(lambda: read_gateway_logs([path]))
    loaded = dict(
        zip(table["source_line"].to_pylist(), table["request_id"].to_pylist(), strict=True)
    )
    refused = {q.line for q in bad}
    assert not set(loaded) & refused
    for line, record in enumerate(records, start=1):
        # loaded, refused with a reason, or the same request as one loaded (read once)
        same = isinstance(record, dict) and record.get("request_id") in loaded.values()
        assert line in loaded or line in refused or same, record
    assert all(q.reason for q in bad)
    for column in ("prompt_tokens", "cached_tokens", "completion_tokens"):
        assert all(0 <= v < 2**63 for v in table[column].to_pylist())


USAGE = {"object": "organization.usage.completions.result", "input_tokens": 10,
         "output_tokens": 5, "input_cached_tokens": 0, "num_model_requests": 1,
         "project_id": None, "model": "m", "batch": None}  # fmt: skip
COST = {"object": "organization.costs.result", "line_item": "m, input", "project_id": "p",
        "amount": {"value": 0.5, "currency": "usd"}}  # fmt: skip
BUCKET = {"object": "bucket", "start_time": 1790812800, "end_time": 1790899200,
          "results": [USAGE, COST]}  # fmt: skip


@SETTINGS
@given(st.lists(_mutations(_paths(BUCKET)), min_size=1, max_size=4))
def test_mutated_provider_buckets(tmp_path_factory, batches):
    # Each mutated bucket a day later than the last, so that no two share a key by chance.
    buckets = [BUCKET] + [
        _mutated({**BUCKET, "start_time": BUCKET["start_time"] + 86400 * i,
                  "end_time": BUCKET["end_time"] + 86400 * i}, m)
        for i, m in enumerate(batches, start=1)
    ]  # fmt: skip
    path = tmp_path_factory.mktemp("p") / "export.json"
    page = {"object": "page", "data": buckets, "has_more": False, "next_page": None}
    path.write_text(_text(page), encoding="utf-8", errors="surrogateescape")
    read = bounded(lambda: read_provider_export("openai", [path]))
    assert all(q.reason for q in read.quarantined)
    if read.quarantined and read.quarantined[0].line is None and not read.usage.num_rows:
        return  # the page itself could not be read (nested too deep): refused whole, with why
    assert read.usage.num_rows >= 1 and read.costs.num_rows >= 1  # the unmutated bucket
    for value in read.costs["amount"].to_pylist():
        assert abs(value) <= 10**12


POD = pod(
    "p-0",
    labels={"run_id": "pt-1", "team": "llm"},
    annotations={"flopledger.io/tokens-in": "5000000"},
    scheduled="2026-10-01T00:02:00Z",
    node="gke-a3-1",
    started="2026-10-01T00:03:00Z",
    phase="Running",
    node_selector={"cloud.google.com/gke-accelerator": "nvidia-h100-80gb"},
    resources={"limits": {"nvidia.com/gpu": "8"}},
)


@SETTINGS
@given(st.lists(_mutations(_paths(POD)), min_size=1, max_size=4))
def test_mutated_pods(tmp_path_factory, batches):
    items = [POD] + [
        _mutated(_set(POD, ("metadata", "uid"), f"uid-{i}"), m) for i, m in enumerate(batches)
    ]
    path = tmp_path_factory.mktemp("k") / "pods.json"
    path.write_text(_text({"apiVersion": "v1", "kind": "List", "items": items}),
                    encoding="utf-8", errors="surrogateescape")  # fmt: skip
    read = bounded(lambda: read_pod_files([path]))
    assert all(q.reason for q in read.quarantined)
    # Every item is read as a pod or refused; a file too deep to parse is refused whole, so.
    too_deep = any("too deep" in q.reason for q in read.quarantined)
    assert read.rows_read == len(items) or (too_deep and read.rows_read == 1)


def _focus_rows() -> tuple[list[str], list[dict[str, str]]]:
    with (FIXTURES / "focus" / "focus_sample.csv").open(newline="") as fh:
        reader = csv.DictReader(fh)
        return list(reader.fieldnames or []), list(reader)[:3]


FOCUS_HEADER, FOCUS_ROWS = _focus_rows()
FOCUS_CELL = st.one_of(ODD.map(lambda v: "" if v is None else str(v)), st.text(max_size=30))


@SETTINGS
@given(st.lists(st.tuples(st.integers(0, len(FOCUS_ROWS) - 1),
                          st.sampled_from(FOCUS_HEADER), FOCUS_CELL), min_size=1, max_size=6))  # fmt: skip
def test_mutated_focus_cells(tmp_path_factory, changes):
    rows = [dict(r) for r in FOCUS_ROWS]
    for index, column, value in changes:
        rows[index][column] = value.replace(DEEP, "[" * DEPTH + "]" * DEPTH)
    out = io.StringIO()
    writer = csv.DictWriter(out, FOCUS_HEADER)
    writer.writeheader()
    writer.writerows(rows)
    path = tmp_path_factory.mktemp("f") / "focus.csv"
    path.write_text(out.getvalue(), encoding="utf-8", errors="surrogateescape")
    read = bounded(lambda: read_focus_files([path]))
    assert read.table.num_rows + len(read.quarantined) + read.duplicates == len(rows)
    assert all(q.reason for q in read.quarantined)
    for column in ("billed_cost", "effective_cost"):
        if column in read.table.column_names:
            assert all(abs(v) <= 10**12 for v in read.table[column].to_pylist() if v is not None)


SACCT = json.loads(
    (
        FIXTURES / "slurm_sacct_json" / "sacct_json_slurm-23.11.5_data_parser-v0.0.40_gpu.json"
    ).read_text()
)
SACCT_JOB = SACCT["jobs"][0]


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(_mutations(_paths(SACCT_JOB)[:400]))
def test_mutated_sacct_jobs(tmp_path_factory, mutations):
    document = {**SACCT, "jobs": [SACCT_JOB, _mutated(SACCT_JOB, mutations)]}
    path = tmp_path_factory.mktemp("s") / "sacct.json"
    path.write_text(_text(document), encoding="utf-8", errors="surrogateescape")
    read = bounded(lambda: read_jobs_files([path]))
    assert all(q.reason for q in read.quarantined)
    assert read.rows_read == read.jobs.num_rows + len(read.quarantined) + read.duplicates
