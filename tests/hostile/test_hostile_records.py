"""One bad record never stops a source: values that used to raise out of a reader
(OverflowError, RecursionError, an int too large for its column) are quarantined with a
reason, and the good records beside them still load."""

from __future__ import annotations

import csv
import json
import sys
from datetime import date
from decimal import Decimal
from pathlib import Path

from flopledger.collectors.focus.read import read_focus_files
from flopledger.collectors.inference.days import managed_days
from flopledger.collectors.inference.gateway import read_gateway_logs
from flopledger.collectors.inference.provider_export import read_provider_export
from flopledger.collectors.kubernetes.read import read_pod_files
from flopledger.settings.config_file import ManagedInferenceConfig, ProviderExportConfig
from tests.collectors.kubernetes.k8s_fakes import pod

FOCUS = Path(__file__).parent.parent / "fixtures" / "focus" / "focus_sample.csv"
# Deeper than any Python stack: json.loads raises RecursionError on it.
DEPTH = max(50_000, sys.getrecursionlimit() * 10)

REQUEST = {
    "request_id": "ok",
    "startTime": "2026-10-01T10:00:00Z",
    "endTime": "2026-10-01T10:00:02Z",
    "custom_llm_provider": "together_ai",
    "model": "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo",
    "prompt_tokens": 12,
    "completion_tokens": 3,
    "spend": 0.00001,
}


def _reasons(bad) -> dict[int | None, str]:
    return {q.line: q.reason for q in bad}


def test_gateway_requests_out_of_range_are_quarantined(tmp_path: Path):
    lines = [
        REQUEST,
        {**REQUEST, "request_id": "far", "startTime": "9999-12-31T00:00:00Z", "endTime": None},
        {**REQUEST, "request_id": "offset", "startTime": "9999-12-31T23:00:00-05:00"},
        {**REQUEST, "request_id": "tokens", "prompt_tokens": 1e30},
        {**REQUEST, "request_id": "1970", "startTime": 0, "endTime": None},
    ]
    path = tmp_path / "gateway.ndjson"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    rows, bad = read_gateway_logs([path])
    assert rows["request_id"].to_pylist() == ["ok"]
    reasons = _reasons(bad)
    assert sorted(reasons) == [2, 3, 4, 5]  # every bad line, and only those
    assert "startTime" in reasons[2] and "plausible window" in reasons[2]
    assert "between years 1 and 9999" in reasons[3]
    assert "prompt_tokens" in reasons[4] and "BIGINT" in reasons[4]
    assert "plausible window" in reasons[5]
    # The days a run would materialise are the good request's alone: year 9999 opens none.
    assert managed_days([path], None) == {date(2026, 10, 1)}


def _page(*buckets) -> dict:
    return {"object": "page", "data": list(buckets), "has_more": False, "next_page": None}


def test_a_provider_bucket_in_year_9999_is_quarantined(tmp_path: Path):
    usage = {"object": "organization.usage.completions.result", "input_tokens": 10,
             "output_tokens": 5, "input_cached_tokens": 0, "num_model_requests": 1,
             "project_id": None, "model": "m", "batch": None}  # fmt: skip
    cost = {"object": "organization.costs.result", "line_item": "m, input", "project_id": "p",
            "amount": {"value": 0.5, "currency": "usd"}}  # fmt: skip
    day = 1790812800  # 2026-10-01 00:00 UTC
    buckets = [
        {"object": "bucket", "start_time": day, "end_time": day + 86400, "results": [usage, cost]},
        {
            "object": "bucket",
            "start_time": "9999-12-31T00:00:00Z",
            "end_time": "9999-12-31T01:00:00Z",
            "results": [cost],
        },  # fmt: skip
    ]
    path = tmp_path / "costs.json"
    path.write_text(json.dumps(_page(*buckets)))
    read = read_provider_export("openai", [path])
    assert (read.usage.num_rows, read.costs.num_rows) == (1, 1)
    assert [q.reason for q in read.quarantined] == [
        "start_time: 9999-12-31T00:00:00 is outside the plausible window 2000-01-01 .. "
        "2100-01-01 (limits.earliest/future_days)"
    ]
    source = ManagedInferenceConfig(
        provider_exports=[ProviderExportConfig(provider="openai", costs=[str(path)])]
    )
    assert managed_days([], source) == {date(2026, 10, 1)}


def _deep_annotation_pod_text() -> str:
    """One pod whose annotation is nested DEPTH arrays deep, as JSON text (json.dumps of
    such a value would itself overflow the stack)."""
    item = pod("deep", annotations={"x": "PLACEHOLDER"})
    return json.dumps(item).replace('"PLACEHOLDER"', "[" * DEPTH + "]" * DEPTH)


def test_a_pod_nested_too_deep_is_refused_not_fatal(tmp_path: Path):
    good = pod("good", scheduled="2026-10-01T00:02:00Z", node="gke-a3-1", phase="Running",
               started="2026-10-01T00:03:00Z",
               node_selector={"cloud.google.com/gke-accelerator": "nvidia-h100-80gb"})  # fmt: skip
    # kubectl's indented list with the deep pod in it: the file is refused whole, with why.
    listed = tmp_path / "a-pods.json"
    body = json.dumps({"apiVersion": "v1", "kind": "List", "items": ["DEEP"]}, indent=4)
    listed.write_text(body.replace('"DEEP"', _deep_annotation_pod_text()))
    # The watcher's JSON Lines: the deep record is refused alone, the good pod loads.
    record = json.dumps({"record": "pod", "uid": "uid-good"})  # a line to show lines go on
    lines = tmp_path / "b-pods.jsonl"
    lines.write_text(_deep_annotation_pod_text() + "\n" + record + "\n")
    kubectl = tmp_path / "c-pods.json"
    kubectl.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [good]}))
    read = read_pod_files([listed, lines, kubectl])
    reasons = [(Path(q.file).name, q.line, q.reason) for q in read.quarantined]
    assert reasons[0] == (
        "a-pods.json",
        None,
        "JSON nested too deep to read: the file is refused whole",
    )
    assert reasons[1] == ("b-pods.jsonl", 1, "JSON nested too deep or a number too long")
    assert [r[0] for r in reasons[2:]] == ["b-pods.jsonl"]  # the short record: not a full pod
    assert read.jobs["run_id"].to_pylist() == ["ml-research/good"]


def test_a_provider_page_nested_too_deep_is_refused_whole(tmp_path: Path):
    # Found by test_hostile_properties_sources.py: json.loads raised RecursionError out of the
    # reader. The file is one document, so it is refused whole, and the next file still reads.
    deep = tmp_path / "a-deep.json"
    deep.write_text('{"object": "page", "data": ' + "[" * DEPTH + "]" * DEPTH + "}")
    good = tmp_path / "b-good.json"
    bucket = {"object": "bucket", "start_time": 1790812800, "end_time": 1790899200,
              "results": [{"object": "organization.costs.result", "line_item": "m, input",
                           "project_id": "p", "amount": {"value": 0.5, "currency": "usd"}}]}  # fmt: skip
    good.write_text(json.dumps(_page(bucket)))
    read = read_provider_export("openai", [deep, good])
    assert [(Path(q.file).name, q.reason) for q in read.quarantined] == [
        ("a-deep.json", "JSON nested too deep to read: the file is refused whole")
    ]
    assert read.costs["amount"].to_pylist() == [Decimal("0.5")]


def test_a_focus_cost_of_1e400_is_refused_not_fatal(tmp_path: Path):
    # Found by the property test too: 1e400 has no 12-place form (decimal.InvalidOperation).
    header = FOCUS.read_text().splitlines()[0]
    columns = next(csv.reader([header]))
    rows = list(csv.DictReader(FOCUS.open(newline="")))[:2]
    rows[0]["BilledCost"] = "1e400"
    path = tmp_path / "focus.csv"
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, columns)
        writer.writeheader()
        writer.writerows(rows)
    read = read_focus_files([path])
    assert [(q.line, q.reason) for q in read.quarantined] == [
        (2, "BilledCost: 1E+400 does not fit DECIMAL(38, 12)")
    ]
    assert read.table.num_rows == 1
