"""Managed inference traffic for any simulated fleet, in the formats the world writes, with its truth.

Written under `managed/`: one gateway request log per UTC day (`gateway/<day>.ndjson`, one
LiteLLM spend-log row per request), one provider's usage and cost pages per day in the OpenAI
organisation bucket format (`fireworks_ai/usage-<day>.json`, `costs-<day>.json`; the last
day's costs are not exported yet, so the price book costs it), and the dated price book
(`price_book.csv`). Every model the fleet's runs serve goes through the gateway every day,
so each day's self-hosted inference runs have a managed counterpart to be compared with.

What the gateway does: it prices together_ai and huggingface requests itself (its price
table equals the book, except a stale mixtral-8x7b price, which the pipeline must flag) and
logs `spend: 0` for baseten (no price known to it), so the book costs those. A request served
from the gateway's cache, or that failed, costs nothing.

THE ARITHMETIC RULE (what `truth/managed_*.csv` holds, money in integer nano-USD):
- a gateway request's cost: 0 for a cache hit or a failure; else its logged spend (the JSON
  number's text, rounded half to even to 9 places) when positive; else the book:
  floor(((prompt - cached) x input + cached x cached_input + completion x output) x 1e9 / 1e6)
  with prices per Mtok (cached_input defaults to input);
- an export day: the charged amounts (each as written), else the same book rule on the
  usage bucket's tokens.
"""

from __future__ import annotations

import csv
import json
import random
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path
from typing import Any

from flopledger.simulator.clock import DAY_US, MINUTE_US, US, day_start_us, iso_text
from flopledger.simulator.schedule import MODELS, Run

NANO = Decimal("1e-9")
EXPORT_PROVIDER = "fireworks_ai"
EXPORT_PROJECT = "proj-applied"
REQUESTS_PER_DAY = 24  # per provider and model: enough for percentiles, small for the demo


@dataclass(frozen=True)
class Price:
    provider: str
    model: str
    input_per_mtok: str
    output_per_mtok: str
    cached_input_per_mtok: str | None
    source_url: str


# Illustrative figures in the shape of each provider's public price list (simulated models;
# acme-moe-400b is the fleet's own model: no provider serves it).
PRICES = (
    Price("together_ai", "llama-8b", "0.18", "0.18", "0.09", "https://www.together.ai/pricing"),
    Price("together_ai", "llama-70b", "0.88", "0.88", "0.44", "https://www.together.ai/pricing"),
    Price("together_ai", "mixtral-8x7b", "0.60", "0.60", None, "https://www.together.ai/pricing"),
    Price("together_ai", "gemma-27b", "0.80", "0.80", None, "https://www.together.ai/pricing"),
    Price("baseten", "llama-70b", "0.70", "1.10", None, "https://www.baseten.co/pricing/"),
    Price("baseten", "llama-8b", "0.10", "0.25", None, "https://www.baseten.co/pricing/"),
    Price("huggingface", "gemma-27b", "0.90", "1.10", None, "https://huggingface.co/docs/inference-providers/pricing"),
    Price(EXPORT_PROVIDER, "llama-70b", "0.90", "0.90", "0.45", "https://fireworks.ai/pricing"),
    Price(EXPORT_PROVIDER, "mixtral-8x7b", "0.50", "0.50", None, "https://fireworks.ai/pricing"),
)  # fmt: skip
GATEWAY_PRICED = {"together_ai", "huggingface"}
STALE = {("together_ai", "mixtral-8x7b"): ("0.54", "0.54")}  # the gateway's out-of-date table


def _book(provider: str, model: str) -> Price | None:
    return next((p for p in PRICES if p.provider == provider and p.model == model), None)


def book_nanos(price: Price, prompt: int, cached: int, completion: int) -> int:
    """The price book's cost in nano-USD (floor), per the module's rule."""
    cached_price = price.cached_input_per_mtok or price.input_per_mtok
    total = (
        (prompt - cached) * int(Decimal(price.input_per_mtok).scaleb(9))
        + cached * int(Decimal(cached_price).scaleb(9))
        + completion * int(Decimal(price.output_per_mtok).scaleb(9))
    )
    return total // 1_000_000


def _as_logged(amount: Decimal) -> tuple[float, int]:
    """An amount as a JSON float (what a gateway writes) and the nanos that text stands for."""
    number = float(amount)
    exact = Decimal(repr(number)).quantize(NANO, rounding=ROUND_HALF_EVEN)
    return number, int(exact.scaleb(9))


@dataclass
class ManagedTruth:
    requests: list[list[str]] = field(default_factory=list)
    exports: list[list[str]] = field(default_factory=list)
    gateway_nanos: int = 0
    export_nanos: int = 0

    def totals(self) -> dict[str, Any]:
        return {
            "requests": len(self.requests),
            "gateway_usd": _text(self.gateway_nanos),
            "provider_export_usd": _text(self.export_nanos),
            "managed_usd": _text(self.gateway_nanos + self.export_nanos),
        }


def _text(nanos: int) -> str:
    return str(Decimal(nanos).scaleb(-9).quantize(NANO))


def _routes(models: list[str]) -> list[tuple[str, str]]:
    """(provider, model) pairs the gateway serves: every model at together_ai, and where the
    book has them, at baseten and huggingface."""
    routes = [("together_ai", m) for m in models if _book("together_ai", m)]
    routes += [(p, m) for p in ("baseten", "huggingface") for m in models if _book(p, m)]
    return routes


def _request(
    rng: random.Random, provider: str, model: str, team: str, day_us: int, n: int
) -> dict[str, Any]:
    start = day_us + rng.randrange(0, DAY_US - 10 * MINUTE_US)
    prompt = rng.randint(200, 4000)
    completion = rng.randint(20, 1200)
    cached = rng.randint(0, prompt // 2) if rng.random() < 0.3 else 0
    status = "failure" if rng.random() < 0.03 else "success"
    cache_hit = status == "success" and rng.random() < 0.03
    if status == "failure":
        completion, cached = 0, 0
    first_token = rng.randint(80, 600) * 1000
    latency = first_token + completion * rng.randint(8, 25) * 1000
    batch = rng.random() < 0.2
    return {
        "request_id": f"chatcmpl-{provider[:4]}-{day_us // DAY_US}-{model}-{n:05d}",
        "call_type": "acompletion",
        "api_key": f"hashed-key-{team}",
        "spend": 0.0,
        "total_tokens": prompt + completion,
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "startTime": iso_text(start),
        "endTime": iso_text(start + latency),
        "completionStartTime": iso_text(start + first_token) if status == "success" else None,
        "model": f"{provider}/{model}",
        "model_group": model,
        "model_id": f"{provider}-{model}",
        "custom_llm_provider": provider,
        "api_base": f"https://api.{provider}.example/v1",
        "user": "",
        "team_id": f"team-{team}",
        "end_user": "",
        "cache_hit": "True" if cache_hit else "False",
        "cache_key": "",
        "request_tags": [f"workload_class:{'batch_inference' if batch else 'online_inference'}"],
        "status": status,
        "metadata": {
            "user_api_key_team_id": f"team-{team}",
            "user_api_key_team_alias": team,
            "user_api_key_alias": f"{team}-prod",
            "usage_object": {"prompt_tokens_details": {"cached_tokens": cached}},
        },
    }


def _price_request(record: dict[str, Any], truth: ManagedTruth, day: date) -> None:
    """Set what the gateway logs as spend, and record the request's true cost."""
    provider, model = record["custom_llm_provider"], record["model_group"]
    price = _book(provider, model)
    assert price is not None
    prompt, completion = record["prompt_tokens"], record["completion_tokens"]
    cached = record["metadata"]["usage_object"]["prompt_tokens_details"]["cached_tokens"]
    book = book_nanos(price, prompt, cached, completion)
    if record["status"] == "failure" or record["cache_hit"] == "True":
        nanos, source = 0, "failed" if record["status"] == "failure" else "gateway_cache"
    elif provider in GATEWAY_PRICED:
        inp, out = STALE.get((provider, model), (price.input_per_mtok, price.output_per_mtok))
        stale = Price(provider, model, inp, out, price.cached_input_per_mtok, price.source_url)
        record["spend"], nanos = _as_logged(
            Decimal(book_nanos(stale, prompt, cached, completion)).scaleb(-9)
        )
        source = "gateway"
        if nanos == 0:  # too small to log: the pipeline falls back to the book
            nanos, source = book, "price_book"
    else:
        nanos, source = book, "price_book"
    truth.gateway_nanos += nanos
    truth.requests.append(
        [record["request_id"], day.isoformat(), provider, model, _text(nanos), source]
    )


def _gateway_day(
    out: Path,
    rng: random.Random,
    routes: list[tuple[str, str]],
    teams: list[str],
    day: date,
    truth: ManagedTruth,
) -> int:
    day_us = day_start_us(day)
    records = []
    for provider, model in routes:
        for n in range(REQUESTS_PER_DAY):
            record = _request(rng, provider, model, teams[n % len(teams)], day_us, n)
            _price_request(record, truth, day)
            records.append(record)
    records.sort(key=lambda r: (r["startTime"], r["request_id"]))
    lines = [json.dumps(r, separators=(",", ":")) for r in records]
    if records:
        lines.append(lines[0])  # a retried log shipment: the same row twice (one request)
    path = out / "gateway" / f"{day.isoformat()}.ndjson"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return len(records)


def _page(results: list[dict[str, Any]], day: date) -> dict[str, Any]:
    start = day_start_us(day) // US
    bucket = {
        "object": "bucket",
        "start_time": start,
        "end_time": start + 86400,
        "results": results,
    }
    return {"object": "page", "data": [bucket], "has_more": False, "next_page": None}


def _usage_result(model: str, batch: bool, inp: int, cached: int, outp: int) -> dict[str, Any]:
    return {
        "object": "organization.usage.completions.result", "input_tokens": inp,
        "output_tokens": outp, "input_cached_tokens": cached, "input_audio_tokens": 0,
        "output_audio_tokens": 0, "num_model_requests": inp // 2000, "project_id": EXPORT_PROJECT,
        "user_id": None, "api_key_id": None, "model": model, "batch": batch,
    }  # fmt: skip


def _export_day(
    out: Path, rng: random.Random, day: date, with_costs: bool, truth: ManagedTruth
) -> None:
    """One day of the export provider's usage page, and its costs page unless not yet exported:
    charges per model as an input and an output line (batch and online together, as OpenAI's
    costs endpoint groups them)."""
    usage: list[dict[str, Any]] = []
    charged: dict[tuple[str, str], int] = {}
    for price in (p for p in PRICES if p.provider == EXPORT_PROVIDER):
        for batch in (False, True):
            inp = rng.randint(2, 40) * 1_000_000 + rng.randint(0, 999_999)
            cached = inp // 5 if price.cached_input_per_mtok else 0
            outp = rng.randint(1, 20) * 1_000_000 + rng.randint(0, 999_999)
            usage.append(_usage_result(price.model, batch, inp, cached, outp))
            nanos = book_nanos(price, inp, cached, outp)
            if not with_costs:
                truth.export_nanos += nanos
                truth.exports.append(
                    [day.isoformat(), EXPORT_PROVIDER, price.model, f"batch={batch}".lower(),
                     _text(nanos), "price_book"]
                )  # fmt: skip
                continue
            input_part = nanos * inp // (inp + outp)
            for item, part in (("input", input_part), ("output", nanos - input_part)):
                charged[(price.model, item)] = charged.get((price.model, item), 0) + part
    costs = []
    for (model, item), nanos in charged.items():
        number, logged = _as_logged(Decimal(nanos).scaleb(-9))
        truth.export_nanos += logged
        truth.exports.append(
            [day.isoformat(), EXPORT_PROVIDER, model, item, _text(logged), "charged"]
        )
        costs.append({"object": "organization.costs.result", "amount": {"value": number, "currency": "usd"},
                      "line_item": f"{model}, {item}", "project_id": EXPORT_PROJECT})  # fmt: skip
    folder = out / EXPORT_PROVIDER
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"usage-{day.isoformat()}.json").write_text(json.dumps(_page(usage, day), indent=1))
    if with_costs:
        (folder / f"costs-{day.isoformat()}.json").write_text(
            json.dumps(_page(costs, day), indent=1)
        )


def _write_price_book(path: Path, as_of: date) -> None:
    header = ["provider", "model", "valid_from", "currency", "input_per_mtok", "output_per_mtok",
              "cached_input_per_mtok", "per_request", "per_gpu_hour", "source_url", "as_of"]  # fmt: skip
    rows = [[p.provider, p.model, as_of.isoformat(), "USD", p.input_per_mtok, p.output_per_mtok,
             p.cached_input_per_mtok or "", "", "", p.source_url, as_of.isoformat()] for p in PRICES]  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def _write_truth(folder: Path, truth: ManagedTruth) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, header, rows in (
        ("managed_requests.csv", ["request_id", "day", "provider", "model", "cost_usd", "cost_source"], truth.requests),
        ("managed_exports.csv", ["day", "provider", "model", "line", "cost_usd", "cost_source"], truth.exports),
    ):  # fmt: skip
        with (folder / name).open("w", newline="") as fh:
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow(header)
            writer.writerows(sorted(rows))
    (folder / "managed_totals.json").write_text(json.dumps(truth.totals(), indent=2) + "\n")


def write_managed(
    out: Path, truth_dir: Path, runs: list[Run], start: date, days: int, seed: int
) -> dict[str, Any]:
    """Write `days` days of managed traffic from `start` into `out`, its truth into `truth_dir`."""
    rng = random.Random(f"managed-{seed}")
    teams = sorted({r.team for r in runs}) or ["applied"]
    served = {
        r.model_name for r in runs if r.workload_class in ("online_inference", "batch_inference")
    }
    models = [name for name, _ in MODELS if name in served] or [MODELS[1][0]]
    routes = _routes(models)
    truth = ManagedTruth()
    _write_price_book(out / "price_book.csv", start)
    for d in range(days):
        day = start + timedelta(days=d)
        _gateway_day(out, rng, routes, teams, day, truth)
        _export_day(out, rng, day, with_costs=d < days - 1 or days == 1, truth=truth)
    _write_truth(truth_dir, truth)
    return truth.totals()


CONFIG_LINES = [
    "  managed_inference:  # gateway request logs, a provider's usage/cost pages, the price book",
    '    paths: ["managed/gateway/*.ndjson"]',
    "    price_book: managed/price_book.csv",
    "    provider_exports:",
    f"      - provider: {EXPORT_PROVIDER}",
    f'        usage: ["managed/{EXPORT_PROVIDER}/usage-*.json"]',
    f'        costs: ["managed/{EXPORT_PROVIDER}/costs-*.json"]',
]
