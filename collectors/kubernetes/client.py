"""The door to the official `kubernetes` client: the only module that imports it.

Pods come back as plain dicts in the API's own JSON shape (camelCase, as `kubectl get -o json`
prints them): lists are read raw (`_preload_content=False`) and watch events undeserialised,
so one reader (collectors/kubernetes/pods.py) serves the API, the watcher's files and saved
kubectl output alike.
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

PAGE = 500


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


def _error(exc: Exception) -> KubernetesError:
    if isinstance(exc, ApiException):
        return KubernetesError(f"kubernetes API: HTTP {exc.status} {exc.reason}")
    return KubernetesError(f"kubernetes API: {exc.__class__.__name__}: {exc}")


def list_pods(
    api: client.CoreV1Api, namespace: str | None = None, page: int = PAGE
) -> tuple[list[dict[str, Any]], str]:
    """Every pod (of one namespace, or all) as API JSON, page by page, and the list's
    resourceVersion (where a watch starts)."""
    items: list[dict[str, Any]] = []
    token: str | None = None
    version = ""
    while True:
        kwargs: dict[str, Any] = {"limit": page, "_preload_content": False}
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
            raise _error(exc) from None
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
) -> Iterator[tuple[str, dict[str, Any]]]:
    """(ADDED | MODIFIED | DELETED | BOOKMARK, object) events from `resource_version` until the
    server ends the watch (after `timeout_s`). Gone when the version is too old (an HTTP 410,
    or an ERROR event carrying a Status with code 410).

    The watch request goes through the client (its credentials, TLS and transport) and its
    JSON lines are read as they come, undeserialised: the client's own `Watch` either builds
    a validated V1Pod of every event (one odd field and the watch dies) or cannot read ERROR
    events at all."""
    kwargs: dict[str, Any] = {
        "watch": True,
        "resource_version": resource_version,
        "timeout_seconds": timeout_s,
        "allow_watch_bookmarks": True,
        "_preload_content": False,  # the raw HTTP response, read line by line
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
        raise _error(exc) from None
    except (HTTPError, OSError, ValueError) as exc:
        raise _error(exc) from None
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
        raise _error(exc) from None
    finally:
        response.close()
        response.release_conn()
