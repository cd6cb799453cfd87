"""Random mutations of real-format inputs (billing rows, run records, probe results, NVML
spool files, saved TPU Monitoring pages): whatever the mutation, the read does not crash,
does a bounded amount of work (hostile.bounded: its rise in peak memory), and accounts for
every input: loaded, quarantined, a duplicate (or, for a Monitoring series, a note saying
why it is not collected). What a billing read loads
is money within its bound, and the marts built over it close their books (that rows at the
bounds themselves build every mart without overflow is test_hostile_bounds.py)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pyarrow.parquet as pq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flopledger.collectors.cloud_monitoring import read_saved_pages
from flopledger.collectors.gcp_billing.read import read_billing_files
from flopledger.collectors.jobs.read import read_jobs_files
from flopledger.collectors.nvml.read import SpoolRead, read_spool
from flopledger.collectors.nvml.schema import rows_to_table
from flopledger.collectors.nvml.spool import spool_file_name
from flopledger.collectors.probe_results import ProbeRead, read_probe_results
from tests.conftest import billing_row, run_record
from tests.hostile.hostile import bounded
from tests.hostile.test_hostile_probes import result

# Values a hostile or broken writer puts where a field was.
ODD = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["", "NaN", "-Infinity", "1e400", "9e28", "20261001", "9999-12-31T23:59:59Z",
                     "1970-01-01 00:00:00 UTC", "n[0-99999999]", "llm\ufffd", "\x00", "[]", "{}"]),
    st.text(max_size=20),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)  # fmt: skip


def _set(record: dict, path: tuple[str, ...], value) -> dict:
    """The record with the value at `path` replaced (a missing parent becomes the value)."""
    out = json.loads(json.dumps(record))
    node = out
    for key in path[:-1]:
        if not isinstance(node.get(key), dict):
            node[key] = value
            return out
        node = node[key]
    node[path[-1]] = value
    return out


def _paths(record: dict, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = []
    for key, value in record.items():
        found.append((*prefix, key))
        if isinstance(value, dict):
            found += _paths(value, (*prefix, key))
    return found


BILLING_PATHS = _paths(billing_row())
RUN_PATHS = _paths(run_record("r"))
PROBE_PATHS = _paths(result("p"))


def _mutations(paths):
    return st.lists(st.tuples(st.sampled_from(paths), ODD), min_size=1, max_size=4)


def _write(path: Path, records: list) -> Path:
    lines = [json.dumps(r, default=str) if not isinstance(r, str) else r for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogateescape")
    return path


def _mutated(base: dict, mutations) -> dict:
    for path, value in mutations:
        base = _set(base, path, value)
    return base


SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@SETTINGS
@given(st.lists(_mutations(BILLING_PATHS), min_size=1, max_size=5))
def test_mutated_billing_rows(tmp_path_factory, batches):
    rows = [billing_row()] + [_mutated(billing_row(), m) for m in batches]
    path = _write(tmp_path_factory.mktemp("b") / "x.ndjson", rows)
    table, stats = bounded(lambda: read_billing_files([path]))
    assert stats.rows_read == len(rows) == table.num_rows + stats.rows_quarantined
    bound = Decimal(10) ** 12
    for column in ("cost", "cost_usd", "credits_total", "credits_total_usd"):
        assert all(abs(v) <= bound for v in table[column].to_pylist() if v is not None)


@SETTINGS
@given(st.lists(_mutations(RUN_PATHS), min_size=1, max_size=5))
def test_mutated_run_records(tmp_path_factory, batches):
    records = [run_record("base")] + [
        _mutated(run_record(f"r{i}"), m) for i, m in enumerate(batches)
    ]
    path = _write(tmp_path_factory.mktemp("j") / "runs.jsonl", records)
    read = bounded(lambda: read_jobs_files([path]))
    assert read.rows_read == len(records)
    assert read.rows_read == read.jobs.num_rows + len(read.quarantined) + read.duplicates


@SETTINGS
@given(st.lists(_mutations(PROBE_PATHS), min_size=1, max_size=5))
def test_mutated_probe_results(tmp_path_factory, batches):
    records = [result("base")] + [_mutated(result(f"p{i}"), m) for i, m in enumerate(batches)]
    path = _write(tmp_path_factory.mktemp("p") / "p.jsonl", records)
    stats = ProbeRead()
    table, quarantined = bounded(lambda: read_probe_results([path], stats=stats))
    assert stats.rows_read == len(records) == table.num_rows + len(quarantined) + stats.duplicates
    for column in ("achieved_tflops", "median_tflops", "efficiency"):
        assert all(
            v == v and abs(v) != float("inf") for v in table[column].to_pylist() if v is not None
        )


@settings(max_examples=3, deadline=None)
@given(st.lists(_mutations(BILLING_PATHS), min_size=1, max_size=4))
def test_the_marts_over_mutated_billing_rows_close_their_books(tmp_path_factory, batches):
    """What the reader loads from mutated rows, with a run on the billed node, goes through
    every mart (tests/models' builder, no Dagster); every books check differs by zero."""
    from tests.models.conftest import Books
    from tests.models.rows import run

    folder = tmp_path_factory.mktemp("m")
    rows = [billing_row()] + [_mutated(billing_row(), m) for m in batches]
    table, _ = read_billing_files([_write(folder / "x.ndjson", rows)])
    loaded = {r["row_id"]: r for r in table.to_pylist()}  # a repeat is one row, as on load
    books = Books(folder).build(list(loaded.values()), [run("run-1", resource="a3-node-1")])
    differences = books.rows("SELECT check_name, difference FROM books")
    assert differences and all(d["difference"] == 0 for d in differences), differences


# -- NVML spool files: rows of any value their columns' types hold, and whole-file changes.

SPOOL_DAY = datetime(2026, 10, 1, 8, 0)
_FLOAT = st.floats(allow_nan=True, allow_infinity=True)
SPOOL_VALUES = {
    "minute": st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 1, 1)),
    "node": st.sampled_from(["c1", "", "n\x00", "c1/../x"]),
    "gpu_uuid": st.one_of(st.none(), st.text(max_size=8)),
    "gpu_index": st.integers(-(2**31), 2**31 - 1),
    "util_gpu_pct": _FLOAT,
    "util_mem_pct": _FLOAT,
    "mem_used_bytes": st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1)),
    "power_w": _FLOAT,
    "energy_j": _FLOAT,
    "samples": st.integers(-(2**31), 2**31 - 1),
    "status": st.sampled_from(["ok", "lost", "not_supported", "", "OK"]),
}
SPOOL_FILE_CHANGES = st.sampled_from([None, None, None, "renamed", "newer", "extra", "torn"])


@SETTINGS
@given(
    st.lists(st.fixed_dictionaries({}, optional=SPOOL_VALUES), min_size=1, max_size=6),
    SPOOL_FILE_CHANGES,
)
def test_mutated_spool_files(tmp_path_factory, changes, file_change):
    from tests.hostile.test_hostile_spool import extra_column, newer, renamed, row

    rows = [row("c1")] + [{**row("c1", SPOOL_DAY + timedelta(minutes=i)), **c}
                          for i, c in enumerate(changes, 1)]  # fmt: skip
    table = rows_to_table(rows)
    path = tmp_path_factory.mktemp("s") / spool_file_name("c1", SPOOL_DAY, "prop")
    change = {"renamed": renamed, "newer": newer, "extra": extra_column}.get(file_change or "")
    pq.write_table(change(table) if change else table, path)
    if file_change == "torn":
        path.write_bytes(path.read_bytes()[:40])
    stats = SpoolRead()
    loaded, quarantined = bounded(lambda: read_spool([path], stats=stats))
    assert stats.rows_read == loaded.num_rows + len(quarantined) + stats.duplicates
    # A file refused whole (renamed, torn) is one row read and one quarantined; else every row
    # is read (a newer agent's file, a newer version or an added column, loads by its columns).
    assert stats.rows_read == (1 if file_change in ("renamed", "torn") else len(rows))
    for column in ("util_gpu_pct", "power_w", "energy_j"):
        assert all(
            v == v and abs(v) != float("inf") for v in loaded[column].to_pylist() if v is not None
        )


# -- Saved TPU Monitoring pages: each series one point on its own chip (accelerator_id = its
# number on the page, which no mutation touches), every other part of it mutated.

TPU_SERIES = {
    "metric": {"type": "tpu.googleapis.com/accelerator/duty_cycle", "labels": {"accelerator_id": "0"}},
    "resource": {"type": "tpu_worker", "labels": {"project_id": "p", "zone": "us-west4-a",
                                                   "node_id": "node-w", "worker_id": "0"}},
    "points": [{"interval": {"endTime": "2026-10-01T10:01:00Z"}, "value": {"doubleValue": 50}}],
}  # fmt: skip
TPU_PATHS = [
    p
    for p in _paths(TPU_SERIES) + [("points",)]
    if p not in (("metric",), ("metric", "labels"), ("metric", "labels", "accelerator_id"))
]


@SETTINGS
@given(st.lists(_mutations(TPU_PATHS), min_size=1, max_size=6), st.booleans())
def test_mutated_tpu_pages(tmp_path_factory, batches, int64_bytes):
    series = [_mutated(TPU_SERIES, m) for m in [[]] + batches]
    if int64_bytes:  # a memory series in int64Value, as the API sends byte counts
        series[0]["metric"]["type"] = "tpu.googleapis.com/accelerator/memory_used"
        series[0]["points"][0]["value"] = {"int64Value": "1073741824"}
    for number, one in enumerate(series, 1):
        one["metric"]["labels"]["accelerator_id"] = str(number)
    path = tmp_path_factory.mktemp("t") / "page.json"
    path.write_text(json.dumps({"timeSeries": series}, default=str))
    table, quarantined, notes = bounded(lambda: read_saved_pages([path]))
    loaded = set(table["accelerator_id"].to_pylist())
    refused = {q.line for q in quarantined}
    assert "1" in loaded  # the unmutated series
    # Every series with points is loaded (a row on its chip), quarantined (its number), or
    # not collected with a note saying why (a metric type not collected, a resource no node
    # maps to); one with no points (null or []) holds no reading to account for.
    unaccounted = [
        n
        for n, one in enumerate(series, 1)
        if one.get("points") and str(n) not in loaded and n not in refused
    ]
    assert not unaccounted or notes, unaccounted
    assert table.num_rows <= len(series)
