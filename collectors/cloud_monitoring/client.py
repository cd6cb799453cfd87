"""The one door to Cloud Monitoring: builds a MetricServiceClient from endpoint + credentials.

`from google.cloud import monitoring_v3` happens here and nowhere else in flopledger.
"""

from __future__ import annotations

import grpc
from google.auth.credentials import AnonymousCredentials, Credentials
from google.cloud import monitoring_v3
from google.cloud.monitoring_v3.services.metric_service.transports import (
    MetricServiceGrpcTransport,
)

LOCAL_HOSTS = ("localhost", "127.0.0.1", "[::1]", "::1")

ListTimeSeriesRequest = monitoring_v3.ListTimeSeriesRequest
ListTimeSeriesResponse = monitoring_v3.ListTimeSeriesResponse
Aggregation = monitoring_v3.Aggregation
MetricServiceClient = monitoring_v3.MetricServiceClient
TimeInterval = monitoring_v3.TimeInterval


def is_local(endpoint: str) -> bool:
    """True for an endpoint on this machine (a test server or emulator): no TLS, no auth."""
    host = endpoint.removeprefix("http://").rsplit(":", 1)[0]
    return host in LOCAL_HOSTS


def make_client(
    endpoint: str | None = None, credentials: Credentials | None = None
) -> MetricServiceClient:
    """A MetricServiceClient: Google's endpoint with application-default credentials by
    default; `endpoint` overrides the host; a local endpoint gets an insecure channel and
    anonymous credentials."""
    if endpoint is None:
        return monitoring_v3.MetricServiceClient(credentials=credentials)
    if is_local(endpoint):
        channel = grpc.insecure_channel(endpoint.removeprefix("http://"))
        transport = MetricServiceGrpcTransport(
            credentials=credentials or AnonymousCredentials(), channel=channel
        )
        return monitoring_v3.MetricServiceClient(transport=transport)
    return monitoring_v3.MetricServiceClient(
        credentials=credentials, client_options={"api_endpoint": endpoint}
    )
