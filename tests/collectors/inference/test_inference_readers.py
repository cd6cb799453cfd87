"""The managed inference readers against hostile input: every refusal has a reason, nothing
crashes, nothing is dropped silently, and the same input read twice gives the same rows."""

from __future__ import annotations

import json
from datetime import datetime
from decimal import Decimal
from pathlib import Path

from flopledger.collectors.inference.gateway import read_gateway_logs
from flopledger.collectors.inference.price_book import read_price_book
from flopledger.collectors.inference.provider_export import line_item_model, read_provider_export

GOOD = {
    "request_id": "a",
    "startTime": "2026-10-01T10:00:00.250+02:00",
    "endTime": 1790848801,
    "custom_llm_provider": "together_ai",
    "model": "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo",
    "prompt_tokens": "12",
    "completion_tokens": 3,
    "spend": 1.2e-05,
}


def _reasons(bad) -> list[str]:
    return [q.reason for q in bad]


def test_gateway_refuses_with_reasons(tmp_path: Path) -> None:
    lines = [
        GOOD,
        [1, 2],
        {**GOOD, "request_id": None},
        {**GOOD, "request_id": "b", "prompt_tokens": 1.5},
        {**GOOD, "request_id": "c", "spend": float("nan")},
        {**GOOD, "request_id": "d", "spend": 1e40},
        {**GOOD, "request_id": "e", "metadata": "team=x"},
        {**GOOD, "request_id": "f", "startTime": "yesterday"},
        {**GOOD, "request_id": "g", "custom_llm_provider": 7},
        {**GOOD, "request_id": "h", "request_tags": ["workload_class:mining"]},
        {**GOOD, "request_id": "i", "model": None},
        {**GOOD, "request_id": "j", "spend": -0.1},
    ]
    path = tmp_path / "g.ndjson"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n")
    rows, bad = read_gateway_logs([path, tmp_path / "missing.ndjson"])
    assert rows["request_id"].to_pylist() == ["a"]
    row = rows.to_pylist()[0]
    # +02:00 is 08:00:00.25 UTC; the epoch end 1790848801 is 2026-10-01 10:00:01 UTC.
    assert row["started_at"] == datetime(2026, 10, 1, 8, 0, 0, 250000)
    assert row["ended_at"] == datetime(2026, 10, 1, 10, 0, 1)
    assert (row["prompt_tokens"], row["spend"], row["model"]) == (
        12,
        Decimal("0.000012000"),
        GOOD["model"],
    )
    assert (row["workload_class"], row["status"], row["cache_hit"]) == (
        "online_inference",
        "success",
        False,
    )
    assert _reasons(bad) == [
        "line is not a JSON object",
        "missing required field request_id",
        "prompt_tokens must be a whole number >= 0, got Decimal('1.5')",
        "spend: nan is not a finite number",
        "spend: 1E+40 does not fit DECIMAL(38, 9)",
        "metadata must be a JSON object, got 'team=x'",
        "startTime: 'yesterday' is not a timestamp",
        "custom_llm_provider must be a string, got 7",
        "unknown workload class 'mining' in request_tags",
        "missing required field model (or model_group)",
        "spend must not be negative, got Decimal('-0.1')",
        "file not found",
    ]
    assert len({q.quarantine_id for q in bad}) == len(bad)
    again, _ = read_gateway_logs([path])
    assert again.equals(rows)


def _page(*buckets) -> dict:
    return {"object": "page", "data": list(buckets), "has_more": False, "next_page": None}


def _bucket(start: int, results: list, end: int | None = None) -> dict:
    return {
        "object": "bucket",
        "start_time": start,
        "end_time": end or start + 86400,
        "results": results,
    }


USAGE = {"object": "organization.usage.completions.result", "input_tokens": 10, "output_tokens": 5,
         "input_cached_tokens": 0, "num_model_requests": 1, "project_id": None, "model": "m", "batch": None}  # fmt: skip


def test_provider_pages_refuse_with_reasons(tmp_path: Path) -> None:
    day = 1790812800  # 2026-10-01 00:00 UTC
    ndjson = tmp_path / "usage.jsonl"  # two pages as NDJSON, the second repeating the first
    ndjson.write_text(
        json.dumps(_page(_bucket(day, [USAGE])))
        + "\n"
        + json.dumps(_page(_bucket(day, [USAGE])))
        + "\n"
    )
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps(_page(
        _bucket(day, [{**USAGE, "output_tokens": 6}]),  # same bucket and group, other values
        _bucket(day, [{"object": "organization.usage.images.result"}]),
        _bucket(day, [{**USAGE, "input_cached_tokens": 11}]),
        _bucket(day, [], end=day),
        "not a bucket",
    )))  # fmt: skip
    costs = tmp_path / "costs.json"
    costs.write_text(json.dumps(_page(_bucket(day, [
        {"object": "organization.costs.result", "amount": {"value": 0.06, "currency": "usd"}, "line_item": "gpt-4o-2024-08-06, input", "project_id": "p"},
        {"object": "organization.costs.result", "amount": 3, "line_item": None, "project_id": "p"},
    ]))))  # fmt: skip
    (tmp_path / "list.json").write_text("[]")
    read = read_provider_export("openai", [ndjson, odd, costs, tmp_path / "list.json"])
    assert read.usage.num_rows == 1 and read.usage.to_pylist()[0]["input_tokens"] == 10
    cost = read.costs.to_pylist()[0]
    assert (cost["model"], cost["amount"], cost["currency"]) == (
        "gpt-4o-2024-08-06",
        Decimal("0.060000000"),
        "USD",
    )
    assert _reasons(read.quarantined) == [
        "the same bucket and group seen before with different values",
        "unknown result object 'organization.usage.images.result' (expected "
        "organization.usage.completions.result or organization.costs.result)",
        "input_cached_tokens exceed input_tokens",
        "bucket end_time is not after start_time",
        'a data entry is not {"object": "bucket", ...}',
        "amount must be an object {value, currency}, got 3",
        'not a usage or costs page ({"object": "page", "data": [...]})',
    ]
    assert line_item_model("gpt-4o, cached input, batch") == "gpt-4o, cached input"
    assert line_item_model(None) is None and line_item_model("storage") is None


def test_price_book_refuses_with_reasons(tmp_path: Path) -> None:
    book = tmp_path / "prices.csv"
    book.write_text(
        "provider,model,valid_from,currency,input_per_mtok,output_per_mtok,cached_input_per_mtok,per_request,per_gpu_hour,source_url,as_of\n"
        "p,m,2026-10-01,usd,0.5,1.5,,,,https://p.example/pricing,2026-09-30\n"
        "p,m,2026-10-01 12:00,USD,0.5,1.5,,,,https://p.example/pricing,2026-09-30\n"
        "p,n,2026-10-01,USD,,,,,,https://p.example/pricing,2026-09-30\n"
        "p,o,2026-10-01,USD,0.5,,,,,https://p.example/pricing,2026-09-30\n"
        "p,q,2026-10-01,USD,-1,1,,,,https://p.example/pricing,2026-09-30\n"
        "p,r,2026-10-01,USD,1,1,,,,ftp://p.example,2026-09-30\n"
        "p,s,2026-10-01,USD,,,,,4.5,https://p.example/dedicated,2026-09-30,extra\n"
    )
    prices, bad = read_price_book(book)
    assert [(r["model"], r["input_per_mtok"]) for r in prices.to_pylist()] == [
        ("m", Decimal("0.500000000"))
    ]
    assert _reasons(bad) == [
        "valid_from must be a day (YYYY-MM-DD), got '2026-10-01 12:00'",
        "no price given (input/output per Mtok, per request or per GPU-hour)",
        "input_per_mtok and output_per_mtok go together",
        "input_per_mtok must not be negative, got '-1'",
        "source_url must be an http(s) URL, got 'ftp://p.example'",
        "more cells than header columns",
    ]
    assert _reasons(read_price_book(tmp_path / "none.csv")[1]) == ["price book not found"]


def test_managed_days_are_the_requests_and_buckets_days(tmp_path: Path) -> None:
    from flopledger.collectors.inference.days import managed_days
    from flopledger.settings.config_file import ManagedInferenceConfig, ProviderExportConfig

    gateway = tmp_path / "g.ndjson"
    gateway.write_text(json.dumps(GOOD) + "\n")  # 2026-10-01 08:00 UTC
    usage = tmp_path / "usage.json"
    usage.write_text(json.dumps(_page(_bucket(1790985600, [USAGE]))))  # 2026-10-03 00:00 UTC
    source = ManagedInferenceConfig(
        provider_exports=[ProviderExportConfig(provider="p", usage=[str(tmp_path / "usage*.json")])]
    )
    assert sorted(str(d) for d in managed_days([gateway], source)) == ["2026-10-01", "2026-10-03"]
