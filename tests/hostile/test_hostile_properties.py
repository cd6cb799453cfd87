"""Random mutations of real-format rows (billing, run records, probe results): whatever the
mutation, the read does not crash, ends in bounded time, counts every line as loaded,
quarantined or a duplicate, and what it loads keeps the books able to close (money within
its bound, so no sum of loaded rows can overflow DECIMAL(38, 9))."""

from __future__ import annotations

import json
import time
from decimal import Decimal
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from collectors.gcp_billing.read import read_billing_files
from collectors.jobs.read import read_jobs_files
from collectors.probe_results import ProbeRead, read_probe_results
from tests.conftest import billing_row, run_record
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
    t0 = time.monotonic()
    table, stats = read_billing_files([path])
    assert time.monotonic() - t0 < 5
    assert stats.rows_read == len(rows) == table.num_rows + stats.rows_quarantined
    bound = Decimal(10) ** 12
    for column in ("cost", "cost_usd", "credits_total", "credits_total_usd"):
        assert all(abs(v) <= bound for v in table[column].to_pylist() if v is not None)
    # So the books can close: 1e16 rows at the bound sum to 1e28, below DECIMAL(38, 9)'s 1e29.
    assert bound * 10**16 < Decimal(10) ** 29


@SETTINGS
@given(st.lists(_mutations(RUN_PATHS), min_size=1, max_size=5))
def test_mutated_run_records(tmp_path_factory, batches):
    records = [run_record("base")] + [
        _mutated(run_record(f"r{i}"), m) for i, m in enumerate(batches)
    ]
    path = _write(tmp_path_factory.mktemp("j") / "runs.jsonl", records)
    t0 = time.monotonic()
    read = read_jobs_files([path])
    assert time.monotonic() - t0 < 5
    assert read.rows_read == len(records)
    assert read.rows_read == read.jobs.num_rows + len(read.quarantined) + read.duplicates


@SETTINGS
@given(st.lists(_mutations(PROBE_PATHS), min_size=1, max_size=5))
def test_mutated_probe_results(tmp_path_factory, batches):
    records = [result("base")] + [_mutated(result(f"p{i}"), m) for i, m in enumerate(batches)]
    path = _write(tmp_path_factory.mktemp("p") / "p.jsonl", records)
    stats = ProbeRead()
    t0 = time.monotonic()
    table, quarantined = read_probe_results([path], stats=stats)
    assert time.monotonic() - t0 < 5
    assert stats.rows_read == len(records) == table.num_rows + len(quarantined) + stats.duplicates
    for column in ("achieved_tflops", "median_tflops", "efficiency"):
        assert all(
            v == v and abs(v) != float("inf") for v in table[column].to_pylist() if v is not None
        )
