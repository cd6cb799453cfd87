"""A provider's usage and costs in the OpenAI organisation bucket format, as
`managed_usage` and `managed_costs` rows.

Each file is one saved page (or NDJSON of pages) of `GET /v1/organization/usage/completions`
or `GET /v1/organization/costs`: `{"object": "page", "data": [bucket, ...], "has_more",
"next_page"}`, each bucket `{"object": "bucket", "start_time", "end_time", "results": [...]}`
with epoch-second times. A usage result (`organization.usage.completions.result`) carries
`input_tokens`, `output_tokens`, `input_cached_tokens`, `num_model_requests` and the group-by
fields `project_id`, `user_id`, `api_key_id`, `model`, `batch`; a cost result
(`organization.costs.result`) carries `amount: {value, currency}`, `line_item` (OpenAI writes
"<model>, input" / "<model>, output"; the model is read from it) and `project_id`.

The provider is not in the pages: the config names it (`provider_exports[].provider`).
Money is USD (the reporting currency); another currency is quarantined until an FX file is
applied. A result that repeats an earlier one (same bucket and group) with the same values is
one row; with different values it is quarantined.
"""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from pathlib import Path
from typing import Any, NamedTuple

import pyarrow as pa

from flopledger.collectors.files import DuplicateKey, Unreadable, iter_ndjson, load_document
from flopledger.collectors.inference import values as v
from flopledger.collectors.inference.values import BadValue
from flopledger.collectors.limits import DEFAULT_LIMITS, Limits
from flopledger.collectors.quarantine import Quarantined

SOURCE = "managed_inference"
USAGE_RESULT = "organization.usage.completions.result"
COST_RESULT = "organization.costs.result"

MANAGED_USAGE_SCHEMA = pa.schema(
    [
        ("usage_id", pa.string()),
        ("provider", pa.string()),
        ("bucket_start", pa.timestamp("us")),
        ("bucket_end", pa.timestamp("us")),
        ("project_id", pa.string()),
        ("model", pa.string()),
        ("batch", pa.bool_()),
        ("api_key_id", pa.string()),
        ("user_id", pa.string()),
        ("input_tokens", pa.int64()),
        ("input_cached_tokens", pa.int64()),
        ("output_tokens", pa.int64()),
        ("num_model_requests", pa.int64()),
        ("source_file", pa.string()),
    ]
)
MANAGED_COSTS_SCHEMA = pa.schema(
    [
        ("cost_id", pa.string()),
        ("provider", pa.string()),
        ("bucket_start", pa.timestamp("us")),
        ("bucket_end", pa.timestamp("us")),
        ("project_id", pa.string()),
        ("line_item", pa.string()),
        ("model", pa.string()),
        ("amount", pa.decimal128(38, 9)),
        ("currency", pa.string()),
        ("source_file", pa.string()),
    ]
)


class ExportRead(NamedTuple):
    usage: pa.Table
    costs: pa.Table
    quarantined: list[Quarantined]


def _key(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()[:32]


def _batch(value: Any) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise BadValue(f"batch must be true, false or null, got {value!r}")


def line_item_model(line_item: str | None) -> str | None:
    """The model of an OpenAI cost line item ("gpt-4o-2024-08-06, input" -> "gpt-4o-2024-08-06")."""
    if not line_item or "," not in line_item:
        return None
    return line_item.rsplit(",", 1)[0].strip() or None


def parse_usage(provider: str, bucket: tuple[Any, Any], result: dict[str, Any]) -> dict[str, Any]:
    start, end = bucket
    row = {
        "provider": provider,
        "bucket_start": start,
        "bucket_end": end,
        "project_id": v.text("project_id", result.get("project_id")),
        "model": v.text("model", result.get("model")),
        "batch": _batch(result.get("batch")),
        "api_key_id": v.text("api_key_id", result.get("api_key_id")),
        "user_id": v.text("user_id", result.get("user_id")),
        "input_tokens": v.count("input_tokens", result.get("input_tokens"), 0),
        "input_cached_tokens": v.count("input_cached_tokens", result.get("input_cached_tokens"), 0),
        "output_tokens": v.count("output_tokens", result.get("output_tokens"), 0),
        "num_model_requests": v.count("num_model_requests", result.get("num_model_requests"), 0),
    }
    if row["input_cached_tokens"] > row["input_tokens"]:
        raise BadValue("input_cached_tokens exceed input_tokens")
    group = (row["project_id"], row["model"], row["batch"], row["api_key_id"], row["user_id"])
    return {"usage_id": _key(provider, start, *group), **row}


def parse_cost(
    provider: str, bucket: tuple[Any, Any], result: dict[str, Any], limits: Limits = DEFAULT_LIMITS
) -> dict[str, Any]:
    start, end = bucket
    amount = result.get("amount")
    if not isinstance(amount, dict):
        raise BadValue(f"amount must be an object {{value, currency}}, got {amount!r}")
    currency = v.text("amount.currency", amount.get("currency"), required=True) or ""
    if currency.lower() != "usd":
        raise BadValue(f"amount.currency {currency!r} is not USD (no FX rates applied yet)")
    value = v.amount("amount.value", amount.get("value"), allow_negative=True, limits=limits)
    if value is None:
        raise BadValue("missing required field amount.value")
    line_item = v.text("line_item", result.get("line_item"))
    project = v.text("project_id", result.get("project_id"))
    return {
        "cost_id": _key(provider, start, project, line_item),
        "provider": provider,
        "bucket_start": start,
        "bucket_end": end,
        "project_id": project,
        "line_item": line_item,
        "model": line_item_model(line_item),
        "amount": value,
        "currency": "USD",
    }


def _bucket(bucket: Any, limits: Limits) -> tuple[Any, Any]:
    """A bucket's (start, end), each inside the plausible window of `limits`."""
    if not isinstance(bucket, dict) or bucket.get("object") != "bucket":
        raise BadValue('a data entry is not {"object": "bucket", ...}')
    start = v.timestamp("start_time", bucket.get("start_time"), required=True, limits=limits)
    end = v.timestamp("end_time", bucket.get("end_time"), required=True, limits=limits)
    if end is not None and start is not None and end <= start:
        raise BadValue("bucket end_time is not after start_time")
    if not isinstance(bucket.get("results"), list):
        raise BadValue("bucket results must be a list")
    return start, end


class _Collected:
    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.usage: dict[str, dict[str, Any]] = {}
        self.costs: dict[str, dict[str, Any]] = {}
        self.bad: list[Quarantined] = []

    def add(
        self, rows: dict[str, dict[str, Any]], key: str, row: dict[str, Any], where: tuple
    ) -> None:
        seen = rows.get(row[key])
        if seen is None:
            rows[row[key]] = row
        elif {k: seen[k] for k in row if k != "source_file"} != {
            k: row[k] for k in row if k != "source_file"
        }:
            self.refuse(where, "the same bucket and group seen before with different values")

    def refuse(self, where: tuple, reason: str) -> None:
        path, line, raw = where
        self.bad.append(Quarantined(SOURCE, str(path), line, reason, raw))


def _raw(obj: Any) -> str:
    return json.dumps(obj, default=str, sort_keys=True)


def _read_page(provider: str, path: Path, line: int | None, page: Any, out: _Collected) -> None:
    if (
        not isinstance(page, dict)
        or page.get("object") != "page"
        or not isinstance(page.get("data"), list)
    ):
        out.refuse(
            (path, line, _raw(page)[:2000]),
            'not a usage or costs page ({"object": "page", "data": [...]})',
        )
        return
    for bucket in page["data"]:
        try:
            times = _bucket(bucket, out.limits)
        except BadValue as exc:
            out.refuse((path, line, _raw(bucket)), str(exc))
            continue
        for result in bucket["results"]:
            where = (
                path,
                line,
                _raw({"bucket_start": str(times[0]), **result})
                if isinstance(result, dict)
                else _raw(result),
            )
            _read_result(provider, times, result, where, out)


def _read_result(provider: str, times: tuple, result: Any, where: tuple, out: _Collected) -> None:
    kind = result.get("object") if isinstance(result, dict) else None
    try:
        if kind == USAGE_RESULT:
            out.add(
                out.usage,
                "usage_id",
                {**parse_usage(provider, times, result), "source_file": str(where[0])},
                where,
            )
        elif kind == COST_RESULT:
            out.add(
                out.costs,
                "cost_id",
                {
                    **parse_cost(provider, times, result, out.limits),
                    "source_file": str(where[0]),
                },
                where,
            )
        else:
            raise BadValue(
                f"unknown result object {kind!r} (expected {USAGE_RESULT} or {COST_RESULT})"
            )
    except BadValue as exc:
        out.refuse(where, str(exc))


def _pages(path: Path) -> list[tuple[int | None, Any, str]]:
    """A file's pages: one JSON document, else one page per line (NDJSON)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        return [(None, load_document(text, parse_float=Decimal), "")]
    except json.JSONDecodeError:
        return list(iter_ndjson(path))
    except DuplicateKey as exc:  # one page naming a key twice: which is meant is unknown
        return [(None, Unreadable(f"{exc}: the file is refused whole"), "")]
    except RecursionError:  # one document nested past Python's stack: refused, not fatal
        return [(None, Unreadable("JSON nested too deep to read: the file is refused whole"), "")]


def read_provider_export(
    provider: str, paths: list[Path], limits: Limits = DEFAULT_LIMITS
) -> ExportRead:
    """Usage and cost rows of one provider's saved pages, and what was refused (a bucket
    outside the plausible window of `limits` among them)."""
    out = _Collected(limits)
    for path in paths:
        if not path.is_file():
            out.refuse((path, None, ""), "file not found")
            continue
        for line, page, raw in _pages(path):
            if isinstance(page, Unreadable):
                out.refuse((path, line, raw), str(page))
                continue
            _read_page(provider, path, line, page, out)
    return ExportRead(
        pa.Table.from_pylist(list(out.usage.values()), schema=MANAGED_USAGE_SCHEMA),
        pa.Table.from_pylist(list(out.costs.values()), schema=MANAGED_COSTS_SCHEMA),
        out.bad,
    )
