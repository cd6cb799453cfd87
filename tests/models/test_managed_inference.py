"""Managed inference, hand-worked: a day of gateway records (cached tokens, a failed request, a
cache hit, a price-book fallback, a price disagreement, a model nobody priced), a provider's
usage and cost pages, and the break-even utilisation of a self-hosted model.

The files are read by the real collectors and the marts built by the warehouse; every
expected number is worked out in the comments (prices per million tokens, so a token at
0.60 / Mtok costs 0.00000060 USD).
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from flopledger.collectors.inference.gateway import read_gateway_logs
from flopledger.collectors.inference.price_book import read_price_book
from flopledger.collectors.inference.provider_export import read_provider_export
from flopledger.warehouse.duckdb import DuckDBWarehouse

DAY = "2026-10-01"

PRICE_BOOK = """provider,model,valid_from,currency,input_per_mtok,output_per_mtok,cached_input_per_mtok,per_request,per_gpu_hour,source_url,as_of
together_ai,llama-70b,2026-09-01,USD,1.00,2.00,,,,https://www.together.ai/pricing,2026-09-01
together_ai,llama-70b,2026-10-01,USD,0.60,1.20,0.30,,,https://www.together.ai/pricing,2026-10-01
baseten,llama-70b,2026-10-01,USD,0.50,1.50,,,,https://www.baseten.co/pricing,2026-10-01
fireworks_ai,llama-8b,2026-10-01,USD,0.20,0.20,,,,https://fireworks.ai/pricing,2026-10-01
baseten,llama-70b,2026-10-01,USD,0.9,0.9,,,,https://www.baseten.co/pricing,2026-10-01
baseten,llama-8b,2026-10-01,EUR,0.9,0.9,,,,https://www.baseten.co/pricing,2026-10-01
baseten,gemma-27b,2026-10-01,USD,0.9,0.9,,,,,2026-10-01
"""


def _request(rid: str, provider: str, prompt: int, completion: int, spend: Any, *,
             cached: int = 0, status: str = "success", cache_hit: str = "False",
             start: str = "10:00:00", end: str = "10:00:02", model: str = "llama-70b",
             team: str = "search") -> dict[str, Any]:  # fmt: skip
    """One LiteLLM spend-log row as the proxy writes it (only what the cost needs varies)."""
    return {
        "request_id": rid,
        "call_type": "acompletion",
        "api_key": "88dc28d0f030c55ed4ab77ed8faf098196cb1c05df778539800c9f1243fe6b4b",
        "spend": spend,
        "total_tokens": prompt + completion,
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "startTime": f"{DAY}T{start}Z",
        "endTime": f"{DAY}T{end}Z",
        "completionStartTime": f"{DAY}T{start}Z",
        "model": f"{provider}/{model}",
        "model_group": model,
        "model_id": "d1f4",
        "custom_llm_provider": provider,
        "api_base": "https://api.example.test/v1",
        "user": "",
        "team_id": "team-1",
        "end_user": "",
        "cache_hit": cache_hit,
        "cache_key": "",
        "request_tags": ["workload_class:online_inference"],
        "status": status,
        "metadata": {
            "user_api_key_team_id": "team-1",
            "user_api_key_team_alias": team,
            "user_api_key_alias": "search-prod",
            "usage_object": {"prompt_tokens_details": {"cached_tokens": cached}},
        },
    }


def _gateway_lines() -> list[str]:
    r1 = _request("r1", "together_ai", 1000, 500, 0.00108, cached=400)
    records = [
        r1,
        # (2000 x 0.60 + 1000 x 1.20) / 1e6 = 0.0024 by the book; the gateway said 0.0025.
        _request("r2", "together_ai", 2000, 1000, 0.0025, start="10:01:00", end="10:01:03"),
        # The gateway knew no baseten price (spend 0): the book's 0.0045.
        _request("r3", "baseten", 3000, 2000, 0.0, cached=1000, start="11:00:00", end="11:00:04"),
        _request("r4", "baseten", 100, 0, 0.0, status="failure", start="11:05:00", end="11:05:00.500"),
        _request("r5", "together_ai", 800, 200, 0.0, cache_hit="True", start="12:00:00", end="12:00:00.010"),
        _request("r8", "together_ai", 10, 10, 0.0, model="mystery-1", start="13:00:00", end="13:00:01"),
    ]  # fmt: skip
    lines = [json.dumps(r) for r in records]
    lines.append(json.dumps(r1))  # the same request logged twice: one row
    lines.append(json.dumps({**r1, "spend": 0.5}))  # the same id, other values: quarantined
    lines.append(json.dumps(_request("r9", "together_ai", -5, 1, 0.1)))  # negative tokens
    lines.append(json.dumps(_request("r10", "together_ai", 10, 1, 0.1, cached=11)))
    lines.append(json.dumps({**_request("r11", "together_ai", 1, 1, 0.1), "status": "maybe"}))
    lines.append('{"request_id": "r12", ')  # cut off
    lines.append(
        json.dumps(_request("r13", "together_ai", 1, 1, 0.1, start="10:00:05", end="10:00:01"))
    )
    return lines


def _page(results: list[dict[str, Any]], start: int) -> dict[str, Any]:
    bucket = {
        "object": "bucket",
        "start_time": start,
        "end_time": start + 86400,
        "results": results,
    }
    return {"object": "page", "data": [bucket], "has_more": False, "next_page": None}


OCT1, OCT2 = 1790812800, 1790899200  # 2026-10-01 and 2026-10-02 00:00 UTC, epoch seconds


def _usage(model: str, batch: bool, inp: int, cached: int, out: int, n: int) -> dict[str, Any]:
    return {"object": "organization.usage.completions.result", "input_tokens": inp,
            "output_tokens": out, "input_cached_tokens": cached, "input_audio_tokens": 0,
            "output_audio_tokens": 0, "num_model_requests": n, "project_id": "proj-a",
            "user_id": None, "api_key_id": None, "model": model, "batch": batch}  # fmt: skip


def _cost(line_item: str, value: Any, currency: str = "usd") -> dict[str, Any]:
    return {"object": "organization.costs.result", "amount": {"value": value, "currency": currency},
            "line_item": line_item, "project_id": "proj-a"}  # fmt: skip


def _write_inputs(root: Path) -> dict[str, Path]:
    paths = {
        "gateway": root / "gateway.ndjson",
        "book": root / "prices.csv",
        "usage1": root / "usage-1001.json",
        "usage2": root / "usage-1002.json",
        "costs1": root / "costs-1001.json",
        "together_usage": root / "together-usage-1001.json",
        "together_costs": root / "together-costs-1001.json",
    }
    paths["gateway"].write_text("\n".join(_gateway_lines()) + "\n")
    paths["book"].write_text(PRICE_BOOK)
    usage1 = [_usage("llama-8b", False, 1_000_000, 0, 500_000, 100),
              _usage("llama-8b", True, 2_000_000, 0, 1_000_000, 10)]  # fmt: skip
    paths["usage1"].write_text(json.dumps(_page(usage1, OCT1)))
    paths["usage2"].write_text(
        json.dumps(_page([_usage("llama-8b", False, 1_000_000, 200_000, 1_000_000, 50)], OCT2))
    )
    costs = [
        _cost("llama-8b, input", 0.30),
        _cost("llama-8b, output", 0.45),
        _cost("llama-8b, input", 9, "eur"),
    ]
    paths["costs1"].write_text(json.dumps(_page(costs, OCT1)))
    # together_ai's own export of 1 Oct: llama-70b, which the gateway logged that day (the
    # same 3 requests), and qwen-72b, which bypassed the gateway (charged 1.20).
    together = [_usage("llama-70b", False, 3800, 400, 1700, 3),
                _usage("qwen-72b", False, 2_000_000, 0, 1_000_000, 20)]  # fmt: skip
    paths["together_usage"].write_text(json.dumps(_page(together, OCT1)))
    together_costs = [_cost("llama-70b, input", 0.002), _cost("qwen-72b, input", 1.20)]
    paths["together_costs"].write_text(json.dumps(_page(together_costs, OCT1)))
    return paths


def _self_hosted(warehouse: DuckDBWarehouse) -> None:
    """cost_per_run as the allocation leaves it, for one day of llama-70b inference runs:
    cost 60 + 40 = 100 USD, of which 10 + 30 = 40 idle; 100M tokens in, 50M out."""
    warehouse.execute(
        "CREATE OR REPLACE TABLE cost_per_run AS SELECT * FROM (VALUES "
        "(TIMESTAMP '2026-10-01 02:00:00', 'llama-70b', 'online_inference', 60000000, 30000000, 60.000000000::DECIMAL(38,9), 10.000000000::DECIMAL(38,9)), "
        "(TIMESTAMP '2026-10-01 09:00:00', 'llama-70b', 'batch_inference', 40000000, 20000000, 40.000000000::DECIMAL(38,9), 30.000000000::DECIMAL(38,9)), "
        "(TIMESTAMP '2026-10-01 09:00:00', 'llama-70b', 'pretraining', 900000000, 0, 500.000000000::DECIMAL(38,9), 1.000000000::DECIMAL(38,9))"
        ") AS t(started_at, model_name, workload_class, tokens_in, tokens_out, effective_cost, allocated_idle_cost)"
    )  # fmt: skip


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("managed")
    paths = _write_inputs(root)
    requests, bad_requests = read_gateway_logs([paths["gateway"]])
    prices, bad_prices = read_price_book(paths["book"])
    export = read_provider_export(
        "fireworks_ai", [paths["usage1"], paths["usage2"], paths["costs1"]]
    )
    # together_ai also exports 1 Oct, a day the gateway logged its llama-70b: counted once.
    overlap = read_provider_export(
        "together_ai", [paths["together_usage"], paths["together_costs"]]
    )
    warehouse = DuckDBWarehouse(root / "w.duckdb")
    warehouse.ensure_schema()
    for name, table in (("managed_requests", requests), ("managed_prices", prices),
                        ("managed_usage", pa.concat_tables([export.usage, overlap.usage])), ("managed_costs", pa.concat_tables([export.costs, overlap.costs]))):  # fmt: skip
        warehouse.replace_all(name, table)
    _self_hosted(warehouse)
    for mart in ("cost_per_request", "managed_inference_daily", "inference_comparison"):
        warehouse.build_mart(mart)
    return {
        "w": warehouse,
        "bad": bad_requests + bad_prices + export.quarantined,
        "requests": requests,
    }


def _rows(built: dict[str, Any], sql: str) -> list[dict[str, Any]]:
    return built["w"].query(sql).to_pylist()


def test_bad_lines_are_quarantined_with_reasons(built: dict[str, Any]) -> None:
    reasons = sorted(q.reason for q in built["bad"])
    assert len(reasons) == 10
    for expected in (
        "request_id seen before with different values",
        "prompt_tokens must be a whole number >= 0, got -5",
        "cached tokens (11) exceed prompt_tokens (10)",
        "status must be success or failure, got 'maybe'",
        "endTime is before startTime",
        "a second price for the same provider, model and valid_from",
        "currency 'EUR' is not USD (no FX rates applied yet)",
        "missing required field source_url",
        "amount.currency 'eur' is not USD (no FX rates applied yet)",
    ):
        assert expected in reasons
    assert any(r.startswith("not valid JSON") for r in reasons)
    # r1 twice is one row: r1, r2, r3, r4, r5, r8.
    assert sorted(built["requests"]["request_id"].to_pylist()) == [
        "r1",
        "r2",
        "r3",
        "r4",
        "r5",
        "r8",
    ]


def test_cost_per_request_by_hand(built: dict[str, Any]) -> None:
    rows = {r["request_id"]: r for r in _rows(built, "SELECT * FROM cost_per_request")}
    # r1: book (1000 - 400) x 0.60 + 400 x 0.30 + 500 x 1.20 = 360 + 120 + 600 = 1080 / 1e6
    #     = 0.00108 (the October price, not September's); the gateway said the same.
    assert rows["r1"]["price_book_cost"] == Decimal("0.001080000")
    assert (rows["r1"]["cost"], rows["r1"]["cost_source"]) == (Decimal("0.001080000"), "gateway")
    assert rows["r1"]["price_mismatch"] is False
    assert rows["r1"]["cached_tokens"] == 400 and rows["r1"]["latency_ms"] == 2000
    # r2: book 0.0024, gateway 0.0025: 0.0001 apart, more than 1% of 0.0024 -> flagged.
    assert (rows["r2"]["cost"], rows["r2"]["price_difference"]) == (
        Decimal("0.002500000"),
        Decimal("0.000100000"),
    )
    assert rows["r2"]["price_mismatch"] is True
    # r3: no gateway price; book (3000 - 1000) x 0.50 + 1000 x 0.50 (no cached price) + 2000 x 1.50
    #     = 1000 + 500 + 3000 = 4500 / 1e6 = 0.0045.
    assert (rows["r3"]["cost"], rows["r3"]["cost_source"]) == (Decimal("0.004500000"), "price_book")
    assert rows["r3"]["gateway_cost"] is None
    # r4 failed (not charged), r5 a gateway cache hit (the provider was not called), r8 unknown.
    assert (rows["r4"]["cost"], rows["r4"]["cost_source"]) == (Decimal("0E-9"), "failed")
    assert (rows["r5"]["cost"], rows["r5"]["cost_source"]) == (Decimal("0E-9"), "gateway_cache")
    assert (rows["r8"]["cost"], rows["r8"]["cost_source"]) == (None, "unpriced")
    # $/Mtok of r3: 0.0045 / (5000 / 1e6) = 0.9.
    assert rows["r3"]["cost_per_million_tokens"] == Decimal("0.900000000")


def test_managed_inference_daily_by_hand(built: dict[str, Any]) -> None:
    rows = _rows(
        built,
        "SELECT * FROM managed_inference_daily WHERE source = 'gateway' AND model = 'llama-70b' ORDER BY provider",
    )
    baseten, together = rows
    # together_ai: r1, r2, r5: cost 0.00108 + 0.0025 + 0 = 0.00358; tokens in 1000 + 2000 + 800
    # = 3800 (400 cached), out 500 + 1000 + 200 = 1700.
    assert (together["requests"], together["failed_requests"], together["error_rate"]) == (
        3,
        0,
        0.0,
    )
    assert (
        together["input_tokens"],
        together["cached_input_tokens"],
        together["output_tokens"],
    ) == (3800, 400, 1700)
    assert together["cost"] == Decimal("0.003580000")
    # 0.00358 / 5500 x 1e6 = 0.650909090..., / 3800 x 1e6 = 0.942105263..., / 1700 x 1e6 = 2.105882352...
    assert together["cost_per_million_tokens"] == Decimal("0.650909090")
    assert together["cost_per_million_input_tokens"] == Decimal("0.942105263")
    assert together["cost_per_million_output_tokens"] == Decimal("2.105882352")
    # Latencies 2000, 3000 and 10 ms: median 2000; p95 at rank 0.95 x 2 = 1.9: 2000 + 0.9 x 1000.
    assert together["latency_p50_ms"] == 2000.0
    assert together["latency_p95_ms"] == pytest.approx(2900.0)
    # baseten: r3 and the failed r4: error rate 1/2; cost 0.0045.
    assert (baseten["requests"], baseten["failed_requests"], baseten["error_rate"]) == (2, 1, 0.5)
    assert baseten["cost"] == Decimal("0.004500000")
    unpriced = _rows(
        built, "SELECT unpriced_requests FROM managed_inference_daily WHERE model = 'mystery-1'"
    )
    assert unpriced == [{"unpriced_requests": 1}]


def test_provider_export_by_hand(built: dict[str, Any]) -> None:
    rows = _rows(built, "SELECT day, workload_class, requests, cost FROM managed_inference_daily "
                        "WHERE source = 'provider_export' AND provider = 'fireworks_ai' "
                        "ORDER BY day, workload_class")  # fmt: skip
    # 1 Oct: charged 0.30 + 0.45 = 0.75 for llama-8b (the EUR line refused), split by tokens:
    # batch 3M of 4.5M -> 0.50, online the rest 0.25. 2 Oct: no charges, so the book:
    # (1M - 200k) x 0.20 + 200k x 0.20 + 1M x 0.20 = 0.16 + 0.04 + 0.20 = 0.40.
    assert [(str(r["day"]), r["workload_class"], r["requests"], r["cost"]) for r in rows] == [
        ("2026-10-01", "batch_inference", 10, Decimal("0.500000000")),
        ("2026-10-01", "online_inference", 100, Decimal("0.250000000")),
        ("2026-10-02", "online_inference", 50, Decimal("0.400000000")),
    ]


def test_break_even_utilisation_by_hand(built: dict[str, Any]) -> None:
    rows = _rows(
        built, "SELECT * FROM inference_comparison WHERE model = 'llama-70b' ORDER BY provider"
    )
    baseten, together = rows
    # Self-hosted (pretraining left out): cost 100, idle 40 -> utilisation 0.6; 150M tokens:
    # 100 / 150 = 0.666666666 USD per Mtok.
    for row in rows:
        assert (row["self_hosted_runs"], row["self_hosted_cost"]) == (2, Decimal("100.000000000"))
        assert row["self_hosted_idle_share"] == pytest.approx(0.4)
        assert row["self_hosted_cost_per_million_tokens"] == Decimal("0.666666666")
    # together_ai for the same mix: 100M x 0.60 + 50M x 1.20 = 60 + 60 = 120 (0.8 / Mtok).
    # Break-even: busy cost / managed cost = (100 - 40) / 120 = 0.5: at 0.6 self-hosting wins.
    assert together["provider_cost_same_mix"] == Decimal("120.000000000")
    assert together["provider_cost_per_million_tokens"] == Decimal("0.800000000")
    assert together["break_even_utilisation"] == pytest.approx(0.5)
    assert together["cheaper"] == "self_hosted"
    # Check by the definition: at u = 0.5 the same capacity makes 150M x 0.5 / 0.6 = 125M
    # tokens for 100 USD: 0.8 per Mtok, together's price for this mix.
    assert Decimal(100) / (Decimal(150) * Decimal("0.5") / Decimal("0.6")) == Decimal("0.8")
    # baseten: 100M x 0.50 + 50M x 1.50 = 125 -> 60 / 125 = 0.48.
    assert baseten["provider_cost_same_mix"] == Decimal("125.000000000")
    assert baseten["break_even_utilisation"] == pytest.approx(0.48)
    # The providers' own traffic that day sits beside it.
    assert (together["managed_requests"], together["managed_cost"]) == (3, Decimal("0.003580000"))
    assert (baseten["managed_requests"], baseten["managed_cost"]) == (2, Decimal("0.004500000"))


def test_managed_model_without_self_hosted_runs_still_compared(built: dict[str, Any]) -> None:
    rows = _rows(built, "SELECT day, provider, self_hosted_runs, managed_cost FROM inference_comparison "
                        "WHERE model = 'llama-8b' ORDER BY day")  # fmt: skip
    assert [
        (str(r["day"]), r["provider"], r["self_hosted_runs"], r["managed_cost"]) for r in rows
    ] == [
        ("2026-10-01", "fireworks_ai", None, Decimal("0.750000000")),
        ("2026-10-02", "fireworks_ai", None, Decimal("0.400000000")),
    ]


def test_an_export_the_gateway_also_logged_counts_once(built: dict[str, Any]) -> None:
    """together_ai's export of 1 Oct has llama-70b (3 requests, charged 0.002), which the
    gateway logged that day (r1, r2, r5: 0.00358), and qwen-72b (20 requests, charged 1.20),
    which it did not. llama-70b is counted once, from the gateway; qwen-72b's export row
    stays: the exclusion is per day, provider and model, not the provider's whole day."""
    assert built["w"].query(
        "SELECT count(*) AS n FROM managed_usage WHERE provider = 'together_ai'"
    ).to_pylist() == [{"n": 2}]
    rows = _rows(
        built,
        "SELECT source, model, requests, cost FROM managed_inference_daily "
        "WHERE provider = 'together_ai' AND model IN ('llama-70b', 'qwen-72b') ORDER BY model",
    )
    assert [(r["source"], r["model"], r["requests"], r["cost"]) for r in rows] == [
        ("gateway", "llama-70b", 3, Decimal("0.003580000")),
        ("provider_export", "qwen-72b", 20, Decimal("1.200000000")),
    ]


def test_rebuilding_changes_nothing(built: dict[str, Any]) -> None:
    before = built["w"].query("SELECT * FROM managed_inference_daily").to_pylist()
    built["w"].build_mart("cost_per_request")
    built["w"].build_mart("managed_inference_daily")
    assert built["w"].query("SELECT * FROM managed_inference_daily").to_pylist() == before
    assert isinstance(built["requests"], pa.Table)
