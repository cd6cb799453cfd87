"""Self-hosted against managed, per million tokens: one value in the CLI and on the tokens page.

The CLI's query divided DECIMALs (a DOUBLE: 0.7999999999999999) where the page's truncated
nano-dollars (0.800000000); both now read self_hosted_vs_managed, by the rule of
cost_per_million_tokens.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

import pytest

from flopledger.cli.managed_lines import managed_lines
from tests.figures.shown import frame_with, gpu_minutes, page, published, squeezed
from tests.models.conftest import books  # noqa: F401 - the fixture the fleet is built with
from tests.models.rows import gpu, run

OCT1 = datetime(2026, 10, 1)


def _price(provider: str, input_per_mtok: str, output_per_mtok: str) -> dict:
    return {
        "provider": provider, "model": "llama-70b", "valid_from": date(2026, 10, 1),
        "currency": "USD", "input_per_mtok": Decimal(input_per_mtok),
        "output_per_mtok": Decimal(output_per_mtok), "source_url": "https://example.test",
        "as_of": date(2026, 10, 1),
    }  # fmt: skip


REQUEST = {
    "request_id": "q1", "started_at": datetime(2026, 10, 1, 12), "provider": "together_ai",
    "model": "llama-70b", "team": "search", "workload_class": "online_inference",
    "status": "success", "cache_hit": False, "prompt_tokens": 1000, "cached_tokens": 0,
    "completion_tokens": 500, "spend": Decimal("0.0012"),
}  # fmt: skip


@pytest.fixture
def compared(books):  # noqa: F811 - the fixture imported above
    # One online inference run of llama-70b holds the 8 GPUs of vm-1 for hour 00, whose GPU row
    # costs 100: the run costs 100. Telemetry: every GPU busy 60% of the hour, so allocated idle
    # = 100 x 0.4 = 40. Tokens: 100M in + 50M out = 150M.
    inference = run("inf", workload_class="online_inference", model_name="llama-70b",
                    tokens_in=100_000_000, tokens_out=50_000_000)  # fmt: skip
    b = books.build([gpu("2026-10-01 00", 100)], [inference], gpu_samples=gpu_minutes(OCT1, 60.0))
    b._load(
        "managed_prices", [_price("together_ai", "0.60", "1.20"), _price("baseten", "0.50", "1.50")]
    )
    b._load("managed_requests", [REQUEST])
    return b.build_marts()


def test_the_cli_and_the_tokens_page_show_one_comparison(compared, monkeypatch) -> None:
    # Self-hosted: 100 USD / 150M tokens = 0.666666666... per M, truncated to the nano-dollar.
    # Same mix at together_ai: 100M x 0.60 + 50M x 1.20 per M = 60 + 60 = 120 (baseten's
    # 50 + 75 = 125 is dearer); 120 / 150 = 0.8 per M. Utilisation 1 - 40 / 100 = 0.6;
    # break-even (100 - 40) / 120 = 0.5, so self-hosting wins.
    lines = squeezed(managed_lines(compared.warehouse, "USD"))
    assert lines[-1] == "llama-70b 0.6667 0.8000 together_ai 60% 50% self-hosted wins"
    assert lines[-2] == "model self-hosted provider util now break-even verdict"
    at = page(monkeypatch, published(compared), "tokens")
    row = frame_with(at, "self_hosted_cost_per_million_tokens").iloc[0]
    assert row["self_hosted_cost_per_million_tokens"] == Decimal("0.666666666")
    assert row["provider_cost_per_million_tokens"] == Decimal("0.800000000")
    assert row["provider_cost_same_mix"] == Decimal("120.000000000")
    assert row["self_hosted_utilisation"] == pytest.approx(0.6)
    assert row["self_hosting_break_even_utilisation"] == pytest.approx(0.5)
    # The CLI prints the page's numbers to 4 places: 0.666666666 -> 0.6667, 0.8 -> 0.8000.
    assert f"{row['self_hosted_cost_per_million_tokens']:,.4f}" == "0.6667"


def test_managed_spend_is_one_figure_in_the_cli_and_on_the_page(compared, monkeypatch) -> None:
    # One request of 1,000 prompt and 500 completion tokens: 1,000 x 0.60 + 500 x 1.20 per M
    # = 0.0006 + 0.0006 = 0.0012 USD, as the gateway logged it.
    lines = squeezed(managed_lines(compared.warehouse, "USD"))
    assert lines[2] == "managed spend 0.00 USD (1 requests, 1 providers)"
    at = page(monkeypatch, published(compared), "tokens")
    by_provider = frame_with(at, "managed_spend")
    assert by_provider["managed_spend"].tolist() == [Decimal("0.001200000")]
    # 0.0012 x 1e6 / 1,500 tokens = 0.8 per M; / 500 output tokens = 2.4 per M output token.
    assert by_provider["managed_cost_per_million_tokens"].tolist() == [Decimal("0.800000000")]
    assert by_provider["managed_cost_per_million_output_tokens"].tolist() == [
        Decimal("2.400000000")
    ]
