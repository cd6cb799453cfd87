"""The UTC days managed inference inputs hold (what `flopledger run` materialises)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from flopledger.collectors.inference.gateway import read_gateway_logs
from flopledger.collectors.inference.provider_export import read_provider_export
from flopledger.collectors.limits import DEFAULT_LIMITS, Limits


def _days(column: pa.ChunkedArray) -> set[date]:
    return {d for d in pc.cast(column, pa.date32()).to_pylist() if d is not None}


def managed_days(
    gateway_logs: list[Path],
    source: Any,
    matching: Callable[[list[str]], list[Path]] | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> set[date]:
    """Days of the gateway requests and of every configured provider export's buckets
    (`matching` finds an export's files, local or remote; else the config's local globs)."""
    requests, _ = read_gateway_logs(gateway_logs, limits)
    days = _days(requests["started_at"])
    for export in source.provider_exports if source is not None else []:
        files = (matching or source.matching)([*export.usage, *export.costs])
        read = read_provider_export(export.provider, files, limits)
        days |= _days(read.usage["bucket_start"]) | _days(read.costs["bucket_start"])
    return days
