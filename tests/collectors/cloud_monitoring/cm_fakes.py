"""An in-process Cloud Monitoring gRPC server (ListTimeSeries only), with scenarios.

The client package ships no server stubs, so a generic handler serves the method with the
package's own request/response types; the real MetricServiceClient talks to it.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from concurrent import futures
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.cloud.monitoring_v3 import ListTimeSeriesRequest, ListTimeSeriesResponse

_METRIC_RE = re.compile(r'metric\.type = "([^"]+)"')


@dataclass
class Scenario:
    """What the server answers, per metric type.

    pages: metric type -> response pages as API JSON dicts; page n is served for the token
    "page-<n>" (the first for no token), and each page but the last points at the next.
    fail_first: metric type -> status code returned once, on the first call for that metric.
    sleep_s: metric type -> seconds the server stalls before answering (released on close).
    """

    pages: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    fail_first: dict[str, grpc.StatusCode] = field(default_factory=dict)
    sleep_s: dict[str, float] = field(default_factory=dict)
    requests: list[ListTimeSeriesRequest] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)

    def calls(self, metric_type: str) -> list[ListTimeSeriesRequest]:
        return [r for r in self.requests if _metric(r) == metric_type]

    def answer(self, request: ListTimeSeriesRequest, context: grpc.ServicerContext) -> Any:
        metric_type = _metric(request)
        self.requests.append(request)
        if metric_type in self.sleep_s:
            self.release.wait(self.sleep_s[metric_type])
        code = self.fail_first.pop(metric_type, None)
        if code is not None:
            context.abort(code, f"scripted {code.name}")
        pages = self.pages.get(metric_type, [{}])
        number = int(request.page_token.removeprefix("page-") or 1)
        page = dict(pages[number - 1])
        if number < len(pages):
            page["nextPageToken"] = f"page-{number + 1}"
        return ListTimeSeriesResponse.from_json(json.dumps(page))


def _metric(request: ListTimeSeriesRequest) -> str:
    found = _METRIC_RE.search(request.filter)
    return found.group(1) if found else ""


@contextmanager
def monitoring_server(scenario: Scenario) -> Iterator[str]:
    """Serve the scenario on 127.0.0.1 (port 0); yields the endpoint "127.0.0.1:<port>"."""
    handler = grpc.method_handlers_generic_handler(
        "google.monitoring.v3.MetricService",
        {
            "ListTimeSeries": grpc.unary_unary_rpc_method_handler(
                scenario.answer,
                request_deserializer=ListTimeSeriesRequest.deserialize,
                response_serializer=ListTimeSeriesResponse.serialize,
            )
        },
    )
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        scenario.release.set()
        server.stop(grace=None)


def series(
    metric: str,
    resource_type: str,
    resource_labels: dict[str, str],
    accelerator_id: str,
    points: list[tuple[str, float]],
) -> dict[str, Any]:
    """One TimeSeries JSON dict, points (endTime, doubleValue) given newest first."""
    return {
        "metric": {"type": metric, "labels": {"accelerator_id": accelerator_id}},
        "resource": {"type": resource_type, "labels": resource_labels},
        "metricKind": "GAUGE",
        "valueType": "DOUBLE",
        "points": [
            {"interval": {"startTime": t, "endTime": t}, "value": {"doubleValue": v}}
            for t, v in points
        ],
    }
