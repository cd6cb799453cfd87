"""The door to the official `kubernetes` client: the only module that imports it.

Pods come back as plain dicts in the API's own JSON shape (camelCase, as `kubectl get -o json`
prints them): lists are read raw (`_preload_content=False`) and watch events undeserialised,
so one reader (collectors/kubernetes/pods.py) serves the API, the watcher's files and saved
kubectl output alike.

A refused connection is retried twice, quickly, then said; every request waits at most
`deadline_s` for an answer (a watch: its own `timeout_s` on the server, plus that), and the
error names the API server and what happened (clients/network.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from kubernetes import client, config
from kubernetes.client.rest import ApiException
from kubernetes.config.config_exception import ConfigException
from kubernetes.watch.watch import iter_resp_lines
from urllib3.exceptions import HTTPError
from urllib3.util.retry import Retry

from flopledger.clients.network import REFUSED_RETRIES, deadline, failure

PAGE = 500
# urllib3's retry for every request: a connection that fails (refused) is tried twice more,
# 0.25 s then 0.5 s later; a request that was sent is never sent again (a read that timed out
# would time out again), nor is an HTTP status retried here.
CONNECT_RETRY = Retry(
    total=REFUSED_RETRIES, connect=REFUSED_RETRIES, read=0, status=0, other=0, backoff_factor=0.25
)


class Gone(Exception):
    """The watch's resourceVersion is too old (HTTP 410 or a 410 ERROR event): list again."""


class KubernetesError(Exception):
    """The cluster could not be reached or refused; the message is one line."""


def core_api(
    kubeconfig: str | None = None,
    context: str | None = None,
    in_cluster: bool = False,
) -> client.CoreV1Api:
    """A CoreV1 client with in-cluster credentials (the pod's service account) or a
    kubeconfig file (None: $KUBECONFIG or ~/.kube/config) and context."""
    configuration = client.Configuration()
    configuration.retries = CONNECT_RETRY
    try:
        if in_cluster:
            config.load_incluster_config(client_configuration=configuration)
        else:
            config.load_kube_config(
                config_file=kubeconfig, context=context, client_configuration=configuration
            )
    except (ConfigException, OSError, TypeError) as exc:
        where = "in-cluster" if in_cluster else (kubeconfig or "the default kubeconfig")
        raise KubernetesError(f"kubernetes credentials ({where}): {exc}") from None
    return client.CoreV1Api(client.ApiClient(configuration))


def _error(exc: Exception, api: client.CoreV1Api, deadline_s: float) -> KubernetesError:
    if isinstance(exc, ApiException):
        return KubernetesError(f"kubernetes API: HTTP {exc.status} {exc.reason}")
    host = getattr(api.api_client.configuration, "host", None) or "the API server"
    return KubernetesError(f"kubernetes API {failure(host, exc, deadline_s)}")


def list_pods(
    api: client.CoreV1Api,
    namespace: str | None = None,
    page: int = PAGE,
    deadline_s: float | None = None,
) -> tuple[list[dict[str, Any]], str]:
    """Every pod (of one namespace, or all) as API JSON, page by page, and the list's
    resourceVersion (where a watch starts). Each page waits at most `deadline_s` (the
    process's, clients/network.py, unless given) for bytes."""
    deadline_s = deadline(deadline_s)
    items: list[dict[str, Any]] = []
    token: str | None = None
    version = ""
    while True:
        kwargs: dict[str, Any] = {
            "limit": page,
            "_preload_content": False,
            "_request_timeout": (deadline_s, deadline_s),
        }
        if token:
            kwargs["_continue"] = token
        try:
            # _preload_content=False: the raw HTTP response, not a V1PodList.
            response: Any = (
                api.list_namespaced_pod(namespace, **kwargs)
                if namespace
                else api.list_pod_for_all_namespaces(**kwargs)
            )
            body = json.loads(response.data)
        except (ApiException, HTTPError, OSError, ValueError) as exc:
            raise _error(exc, api, deadline_s) from None
        items.extend(body.get("items") or [])
        metadata = body.get("metadata") or {}
        version = str(metadata.get("resourceVersion") or version)
        token = metadata.get("continue")
        if not token:
            return items, version


def watch_pods(
    api: client.CoreV1Api,
    resource_version: str,
    namespace: str | None = None,
    timeout_s: int = 300,
    deadline_s: float | None = None,
) -> Iterator[tuple[str, dict[str, Any]]]:
    """(ADDED | MODIFIED | DELETED | BOOKMARK, object) events from `resource_version` until the
    server ends the watch (after `timeout_s`). Gone when the version is too old (an HTTP 410,
    or an ERROR event carrying a Status with code 410).

    The watch request goes through the client (its credentials, TLS and transport) and its
    JSON lines are read as they come, undeserialised: the client's own `Watch` either builds
    a validated V1Pod of every event (one odd field and the watch dies) or cannot read ERROR
    events at all. No bytes for `timeout_s` + `deadline_s` (the server ends the watch after
    `timeout_s`) is a hung server: KubernetesError."""
    deadline_s = deadline(deadline_s)
    silence_s = timeout_s + deadline_s  # a live watch is quiet at most timeout_s
    kwargs: dict[str, Any] = {
        "watch": True,
        "resource_version": resource_version,
        "timeout_seconds": timeout_s,
        "allow_watch_bookmarks": True,
        "_preload_content": False,  # the raw HTTP response, read line by line
        "_request_timeout": (deadline_s, silence_s),
    }
    try:
        response: Any = (
            api.list_namespaced_pod(namespace, **kwargs)
            if namespace
            else api.list_pod_for_all_namespaces(**kwargs)
        )
    except ApiException as exc:
        if exc.status == 410:
            raise Gone(str(exc.reason)) from None
        raise _error(exc, api, silence_s) from None
    except (HTTPError, OSError, ValueError) as exc:
        raise _error(exc, api, silence_s) from None
    try:
        for line in iter_resp_lines(response):
            if not line.strip():
                continue
            event = json.loads(line)
            obj = event.get("object") if isinstance(event, dict) else None
            if not isinstance(obj, dict):
                continue
            if event.get("type") == "ERROR":
                if obj.get("code") == 410:
                    raise Gone(f"{obj.get('reason')}: {obj.get('message')}")
                raise KubernetesError(
                    f"kubernetes watch: {obj.get('code')} {obj.get('reason')}: {obj.get('message')}"
                )
            yield str(event.get("type")), obj
    except (HTTPError, OSError, ValueError) as exc:
        raise _error(exc, api, silence_s) from None
    finally:
        response.close()
        response.release_conn()
