"""Request logs of an OpenAI-compatible gateway (LiteLLM's spend-log rows) as `managed_requests`.

One JSON object per request (NDJSON), the columns of LiteLLM's `LiteLLM_SpendLogs` table:
`request_id`, `call_type`, `api_key` (hashed), `spend` (USD the gateway computed; 0 when it
knew no price), `prompt_tokens`, `completion_tokens`, `total_tokens`, `startTime`, `endTime`,
`completionStartTime`, `model` (as routed), `model_group` (the name the caller asked for),
`custom_llm_provider`, `api_base`, `user`, `team_id`, `cache_hit`, `request_tags`, `status`
(`success` / `failure`) and `metadata` (`user_api_key_team_id`, `user_api_key_team_alias`,
`usage_object.prompt_tokens_details.cached_tokens`, ...). Times are UTC.

A line that is not JSON, lacks a request id, provider, model or start, has negative or
non-whole token counts, more cached than prompt tokens, an end before its start, or an
unknown status or workload class is quarantined with the reason. The same request logged
twice with the same values is one row; logged twice with different values, the later copy is
quarantined (the first file in sorted order wins, so reruns agree).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa

from flopledger.collectors.files import Unreadable, iter_ndjson
from flopledger.collectors.inference import values as v
from flopledger.collectors.inference.values import BadValue
from flopledger.collectors.jobs.schema import WORKLOAD_CLASSES
from flopledger.collectors.limits import DEFAULT_LIMITS, Limits
from flopledger.collectors.quarantine import Quarantined

SOURCE = "managed_inference"
DEFAULT_CLASS = "online_inference"
CLASS_TAG = "workload_class:"
STATUSES = {"success": "success", "failure": "failure", "error": "failure", "failed": "failure"}

MANAGED_REQUESTS_SCHEMA = pa.schema(
    [
        ("request_id", pa.string()),
        ("started_at", pa.timestamp("us")),
        ("ended_at", pa.timestamp("us")),
        ("first_token_at", pa.timestamp("us")),
        ("provider", pa.string()),
        ("model", pa.string()),
        ("provider_model", pa.string()),
        ("team", pa.string()),
        ("api_key_alias", pa.string()),
        ("end_user", pa.string()),
        ("workload_class", pa.string()),
        ("call_type", pa.string()),
        ("status", pa.string()),
        ("cache_hit", pa.bool_()),
        ("prompt_tokens", pa.int64()),
        ("cached_tokens", pa.int64()),
        ("completion_tokens", pa.int64()),
        ("spend", pa.decimal128(38, 9)),
        ("source_file", pa.string()),
        ("source_line", pa.int64()),
    ]
)


def _metadata(record: dict[str, Any]) -> dict[str, Any]:
    metadata = record.get("metadata")
    if metadata is None or metadata == "":
        return {}
    if not isinstance(metadata, dict):
        raise BadValue(f"metadata must be a JSON object, got {metadata!r}")
    return metadata


def _cached_tokens(metadata: dict[str, Any]) -> int:
    usage = metadata.get("usage_object")
    if not isinstance(usage, dict):
        return 0
    details = usage.get("prompt_tokens_details")
    if isinstance(details, dict) and details.get("cached_tokens") is not None:
        return (
            v.count(
                "metadata.usage_object.prompt_tokens_details.cached_tokens",
                details["cached_tokens"],
            )
            or 0
        )
    return (
        v.count(
            "metadata.usage_object.cache_read_input_tokens", usage.get("cache_read_input_tokens"), 0
        )
        or 0
    )


def _workload_class(record: dict[str, Any]) -> str:
    tags = record.get("request_tags") or []
    if not isinstance(tags, list):
        raise BadValue(f"request_tags must be a list, got {tags!r}")
    for tag in tags:
        if isinstance(tag, str) and tag.startswith(CLASS_TAG):
            chosen = tag[len(CLASS_TAG) :]
            if chosen not in WORKLOAD_CLASSES:
                raise BadValue(f"unknown workload class {chosen!r} in request_tags")
            return chosen
    return DEFAULT_CLASS


def _status(record: dict[str, Any]) -> str:
    raw = record.get("status")
    if raw is None or raw == "":
        return "success"  # LiteLLM before the status column logged successes only
    if not isinstance(raw, str) or raw.lower() not in STATUSES:
        raise BadValue(f"status must be success or failure, got {raw!r}")
    return STATUSES[raw.lower()]


def _cache_hit(value: Any) -> bool:
    if value is None or value == "":
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false", "none"):
        return value.lower() == "true"
    raise BadValue(f"cache_hit must be True or False, got {value!r}")


def _team(record: dict[str, Any], metadata: dict[str, Any]) -> str | None:
    for name, value in (
        ("metadata.user_api_key_team_alias", metadata.get("user_api_key_team_alias")),
        ("team_id", record.get("team_id")),
        ("metadata.user_api_key_team_id", metadata.get("user_api_key_team_id")),
    ):
        if value not in (None, ""):
            return v.text(name, value)
    return None


def parse_request(record: Any, limits: Limits = DEFAULT_LIMITS) -> dict[str, Any]:
    """One spend-log object as a typed `managed_requests` row; BadValue says why it cannot be
    one (its times outside the plausible window of `limits`, its counts beyond BIGINT)."""
    if not isinstance(record, dict):
        raise BadValue("line is not a JSON object")
    metadata = _metadata(record)
    prompt = v.count("prompt_tokens", record.get("prompt_tokens"), 0) or 0
    cached = _cached_tokens(metadata)
    if cached > prompt:
        raise BadValue(f"cached tokens ({cached}) exceed prompt_tokens ({prompt})")
    started = v.timestamp("startTime", record.get("startTime"), required=True, limits=limits)
    ended = v.timestamp("endTime", record.get("endTime"), limits=limits)
    if started is not None and ended is not None and ended < started:
        raise BadValue("endTime is before startTime")
    provider_model = v.text("model", record.get("model"))
    model = v.text("model_group", record.get("model_group")) or provider_model
    if model is None:
        raise BadValue("missing required field model (or model_group)")
    return {
        "request_id": v.text("request_id", record.get("request_id"), required=True),
        "started_at": started,
        "ended_at": ended,
        "first_token_at": v.timestamp(
            "completionStartTime", record.get("completionStartTime"), limits=limits
        ),
        "provider": v.text("custom_llm_provider", record.get("custom_llm_provider"), required=True),
        "model": model,
        "provider_model": provider_model,
        "team": _team(record, metadata),
        "api_key_alias": v.text("metadata.user_api_key_alias", metadata.get("user_api_key_alias")),
        "end_user": v.text("end_user", record.get("end_user"))
        or v.text("user", record.get("user")),
        "workload_class": _workload_class(record),
        "call_type": v.text("call_type", record.get("call_type")),
        "status": _status(record),
        "cache_hit": _cache_hit(record.get("cache_hit")),
        "prompt_tokens": prompt,
        "cached_tokens": cached,
        "completion_tokens": v.count("completion_tokens", record.get("completion_tokens"), 0) or 0,
        "spend": v.amount("spend", record.get("spend"), limits=limits),
    }


def _read_file(
    path: Path, rows: dict[str, dict[str, Any]], bad: list[Quarantined], limits: Limits
) -> None:
    for line, record, raw in iter_ndjson(path):
        try:
            if isinstance(record, Unreadable):
                raise BadValue(str(record))
            row = parse_request(record, limits)
        except BadValue as exc:
            bad.append(Quarantined(SOURCE, str(path), line, str(exc), raw))
            continue
        seen = rows.get(row["request_id"])
        if seen is None:
            rows[row["request_id"]] = {**row, "source_file": str(path), "source_line": line}
        elif {k: seen[k] for k in row} != row:
            reason = "request_id seen before with different values"
            bad.append(Quarantined(SOURCE, str(path), line, reason, raw))


def read_gateway_logs(
    paths: list[Path], limits: Limits = DEFAULT_LIMITS
) -> tuple[pa.Table, list[Quarantined]]:
    """One row per request id across every gateway log file, and the lines refused."""
    rows: dict[str, dict[str, Any]] = {}
    bad: list[Quarantined] = []
    for path in paths:
        if not path.is_file():
            bad.append(Quarantined(SOURCE, str(path), None, "file not found", ""))
            continue
        _read_file(path, rows, bad, limits)
    return pa.Table.from_pylist(list(rows.values()), schema=MANAGED_REQUESTS_SCHEMA), bad
