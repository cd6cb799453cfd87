"""ListTimeSeries requests: one metric type per request (the API requires it), aligned to
60 s with ALIGN_MEAN, paged, retried with backoff on UNAVAILABLE and RESOURCE_EXHAUSTED,
each attempt bounded by a per-request deadline.

DEADLINE_EXCEEDED is not retried: a request that outlives its deadline usually does so
again, so it raises `CloudMonitoringError` at once, naming the metric, page, endpoint and
deadline. A refused connection (UNAVAILABLE because nothing listens) is retried twice at
most, then said the same way (clients/network.py): seconds, not the five minutes of backoff
an UNAVAILABLE server gets.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from google.api_core import exceptions, retry, timeout
from google.protobuf.json_format import MessageToDict

from flopledger.clients.network import failure, is_refused, limit_refusals
from flopledger.collectors.cloud_monitoring.client import (
    Aggregation,
    ListTimeSeriesRequest,
    ListTimeSeriesResponse,
    MetricServiceClient,
    TimeInterval,
)

ALIGNMENT_PERIOD = timedelta(seconds=60)
GOOGLE_ENDPOINT = "monitoring.googleapis.com"


class CloudMonitoringError(RuntimeError):
    """A ListTimeSeries call failed for good (after retries, or past its deadline)."""


@dataclass(frozen=True)
class RetryPolicy:
    """Backoff for UNAVAILABLE / RESOURCE_EXHAUSTED: initial_s doubling up to maximum_s,
    giving up after total_s for one page."""

    initial_s: float = 1.0
    maximum_s: float = 30.0
    multiplier: float = 2.0
    total_s: float = 300.0

    def to_retry(self) -> retry.Retry:
        """One request's retry (it counts refusals: make one per request)."""
        return retry.Retry(
            predicate=limit_refusals(
                retry.if_exception_type(exceptions.ServiceUnavailable, exceptions.ResourceExhausted)
            ),
            initial=self.initial_s,
            maximum=self.maximum_s,
            multiplier=self.multiplier,
            timeout=self.total_s,
        )


def utc_minute(when: datetime) -> datetime:
    """Aware UTC datetime floored to the minute (naive input means UTC)."""
    when = when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    return when.replace(second=0, microsecond=0)


def metric_filter(metric_type: str, extra: str | None) -> str:
    """The request filter: the metric type, AND the configured filter if any."""
    base = f'metric.type = "{metric_type}"'
    return f"{base} AND ({extra})" if extra else base


def build_request(
    project_id: str,
    metric_type: str,
    start: datetime,
    end: datetime,
    extra_filter: str | None = None,
    page_size: int | None = None,
) -> ListTimeSeriesRequest:
    """Points ending in (start, end], i.e. minutes [start, end), one per 60 s period."""
    start_utc, end_utc = utc_minute(start), utc_minute(end)
    if end_utc <= start_utc:
        raise ValueError(f"empty window: {start_utc} .. {end_utc}")
    return ListTimeSeriesRequest(
        name=f"projects/{project_id}",
        filter=metric_filter(metric_type, extra_filter),
        interval=TimeInterval(start_time=start_utc, end_time=end_utc),
        aggregation=Aggregation(
            alignment_period=ALIGNMENT_PERIOD,
            per_series_aligner=Aggregation.Aligner.ALIGN_MEAN,
        ),
        view=ListTimeSeriesRequest.TimeSeriesView.FULL,
        page_size=page_size or 0,
    )


def list_pages(
    client: MetricServiceClient,
    request: ListTimeSeriesRequest,
    deadline_s: float,
    policy: RetryPolicy,
    endpoint: str | None = None,
) -> Iterator[dict[str, Any]]:
    """Each response page in its API JSON form (camelCase, int64 as strings)."""
    number = 1
    where = endpoint or GOOGLE_ENDPOINT
    try:
        pager = client.list_time_series(
            request=request, retry=policy.to_retry(), timeout=timeout.ConstantTimeout(deadline_s)
        )
        for number, page in enumerate(pager.pages, 1):  # noqa: B007 (used in the error)
            yield MessageToDict(ListTimeSeriesResponse.pb(page))
    except exceptions.DeadlineExceeded as exc:
        raise CloudMonitoringError(
            f"ListTimeSeries {request.filter} page {number}: {where}: no answer within "
            f"deadline_s={deadline_s} (DEADLINE_EXCEEDED); raise deadline_s or narrow the window"
        ) from exc
    except (exceptions.GoogleAPIError, exceptions.RetryError) as exc:
        if is_refused(exc):
            raise CloudMonitoringError(
                f"ListTimeSeries {request.filter} page {number} on {request.name}: "
                f"{failure(where, exc, deadline_s)}"
            ) from exc
        raise CloudMonitoringError(
            f"ListTimeSeries {request.filter} page {number} on {request.name} failed: {exc}"
        ) from exc
