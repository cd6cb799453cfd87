"""The two ways in: `collect_tpu_samples` (the API) and `read_saved_pages` (saved JSON)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

import pyarrow as pa
from google.auth.credentials import Credentials

from flopledger.collectors.cloud_monitoring.client import make_client
from flopledger.collectors.cloud_monitoring.inventory import Inventory, as_inventory
from flopledger.collectors.cloud_monitoring.parse import SampleBuilder
from flopledger.collectors.cloud_monitoring.query import RetryPolicy, build_request, list_pages
from flopledger.collectors.cloud_monitoring.schema import METRIC_TYPES
from flopledger.collectors.quarantine import Quarantined


def collect_tpu_samples(
    project_id: str,
    start: datetime,
    end: datetime,
    *,
    endpoint: str | None = None,
    credentials: Credentials | None = None,
    filter: str | None = None,  # noqa: A002 (the config key's name)
    inventory: Inventory | str | Path | None = None,
    deadline_s: float = 30.0,
    page_size: int | None = None,
    metric_types: Iterable[str] = METRIC_TYPES,
    retry: RetryPolicy | None = None,
) -> tuple[pa.Table, list[Quarantined], list[str]]:
    """`tpu_samples` for minutes [start, end) (naive = UTC, floored to the minute), the
    quarantined inputs, and notes (series mapped to no billed node, incomplete pages).

    Raises `CloudMonitoringError` when a request fails after its retries or passes its
    deadline: a partial answer is never returned as if complete.
    """
    builder = SampleBuilder(as_inventory(inventory))
    policy = retry or RetryPolicy()
    with make_client(endpoint, credentials) as client:
        for metric_type in metric_types:
            request = build_request(project_id, metric_type, start, end, filter, page_size)
            pages = list_pages(client, request, deadline_s, policy, endpoint)
            for number, page in enumerate(pages, 1):
                builder.add_page(page, f"projects/{project_id} {metric_type} page {number}")
    return builder.finish()
