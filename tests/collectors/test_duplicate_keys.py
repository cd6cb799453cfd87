"""A JSON object naming a key twice is refused, as a table naming a column twice is (issue 36,
item 2a): json.loads keeps the last silently, so `{"cost": 1.00, "cost": 999999.00}` loaded
999,999. A line of NDJSON or JSON Lines is quarantined alone (the billing export, jobs,
gateway, pod records); a file that is one document (sacct --json, kubectl's pod list, a
provider's page) is refused whole, one quarantine row, since which object a duplicate sits in
decides nothing: the file cannot be read as it stands. The billing export's case, both ways
(the columnar reader and the per-row one), is in tests/hostile/test_hostile_billing.py."""

from __future__ import annotations

import json
from pathlib import Path

from flopledger.collectors.inference.provider_export import read_provider_export
from flopledger.collectors.jobs.read import read_jobs_files
from flopledger.collectors.kubernetes.read import read_pod_files
from tests.collectors.kubernetes.k8s_fakes import pod
from tests.conftest import run_record

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SACCT = FIXTURES / "slurm_sacct_json" / "sacct_json_slurm-23.11.5_data_parser-v0.0.40_gpu.json"


def _twice(record: dict, key: str, second: object) -> str:
    """`record` as one JSON line with `key` written again at its end, valued `second`."""
    return json.dumps(record)[:-1] + f", {json.dumps(key)}: {json.dumps(second)}}}"


def test_a_jobs_line_naming_team_twice_is_quarantined_alone(tmp_path: Path) -> None:
    for name in ("runs.jsonl", "runs.json"):  # a .json file of lines: read line by line too
        path = tmp_path / name
        path.write_text(
            _twice(run_record("r-1", team="llm"), "team", "search") + "\n"
            + json.dumps(run_record("r-2")) + "\n"
        )  # fmt: skip
        read = read_jobs_files([path])
        assert read.jobs["run_id"].to_pylist() == ["r-2"]
        assert [(q.line, q.reason) for q in read.quarantined] == [
            (1, "duplicate key 'team' in one JSON object")
        ]
        assert read.rows_read == 2


def test_a_sacct_document_naming_a_key_twice_is_refused_whole(tmp_path: Path) -> None:
    text = SACCT.read_text()
    first = text.index('"job_id": ')
    path = tmp_path / "sacct.json"
    path.write_text(text[:first] + '"job_id": 999999, ' + text[first:])
    untouched = tmp_path / "sacct-good.json"
    untouched.write_text(text)
    read = read_jobs_files([path, untouched])
    good = read_jobs_files([untouched])
    assert read.jobs["run_id"].to_pylist() == good.jobs["run_id"].to_pylist() != []
    assert [(q.file, q.line, q.reason) for q in read.quarantined] == [
        (str(path), None, "duplicate key 'job_id' in one JSON object: the file is refused whole")
    ]


def test_a_pod_list_naming_a_key_twice_is_refused_whole_and_a_record_line_alone(
    tmp_path: Path,
) -> None:
    gpus = {"limits": {"nvidia.com/gpu": "1"}}
    listed = {
        "kind": "List",
        "items": [pod("train", node="n1", scheduled="2026-10-01T00:00:00Z", resources=gpus)],
    }
    text = json.dumps(listed).replace('"nvidia.com/gpu": "1"', '"nvidia.com/gpu": "1", "nvidia.com/gpu": "1000000000"')  # fmt: skip
    document = tmp_path / "pods.json"
    document.write_text(text)
    lines = tmp_path / "pods.jsonl"
    # Two lines (one line alone would be one JSON document): the first names `record` twice.
    lines.write_text('{"record": "pod", "record": "pod"}\n{"record": "not a pod"}\n')
    read = read_pod_files([document, lines])
    assert read.jobs.num_rows == 0
    reasons = sorted(
        ((Path(q.file).name, q.line, q.reason) for q in read.quarantined),
        key=lambda r: (r[0], r[1] or 0),
    )
    assert reasons[:2] == [
        ("pods.json", None, "duplicate key 'nvidia.com/gpu' in one JSON object: the file is refused whole"),
        ("pods.jsonl", 1, "duplicate key 'record' in one JSON object"),
    ]  # fmt: skip
    assert [r[:2] for r in reasons[2:]] == [("pods.jsonl", 2)]  # not a pod record: its own


def test_a_provider_page_naming_amount_twice_is_refused_whole(tmp_path: Path) -> None:
    result = {
        "object": "organization.costs.result",
        "amount": {"value": 1.0, "currency": "usd"},
        "line_item": "llama-70b, input",
        "project_id": "proj-applied",
    }
    page = {
        "object": "page",
        "data": [
            {
                "object": "bucket",
                "start_time": 1_790_812_800,  # 2026-10-01T00:00:00Z
                "end_time": 1_790_899_200,
                "results": [result],
            }
        ],
        "has_more": False,
        "next_page": None,
    }
    text = json.dumps(page).replace('"value": 1.0', '"value": 1.0, "value": 999999.0')
    path = tmp_path / "costs-2026-10-01.json"
    path.write_text(text)
    read = read_provider_export("fireworks_ai", [path])
    assert read.costs.num_rows == 0
    assert [q.reason for q in read.quarantined] == [
        "duplicate key 'value' in one JSON object: the file is refused whole"
    ]
