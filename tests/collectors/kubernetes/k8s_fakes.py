"""A local stand-in for the Kubernetes API server's pod endpoints, and Pods in the API's shape.

`FakeApiServer` (http.server in a thread) answers what the real `kubernetes` client asks:
- `GET /api/v1/pods?limit=N[&continue=T]`: a PodList page (`kind: PodList`, `metadata.
  resourceVersion`, `metadata.continue` while more pages remain). Each full list (first page)
  takes the next scripted list state;
- `GET /api/v1/pods?watch=true&resourceVersion=V...`: the next scripted watch: JSON lines
  `{"type": "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR", "object": ...}`, chunked
  like the real server's; a script may be an int instead, answered as that HTTP status with a
  Status body (410 Gone).
It records each request's path and query so tests can check what was asked.

The shapes follow the API reference (core/v1 Pod, PodList, meta/v1 Status, WatchEvent).
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse


def status_410(version: str = "100", oldest: str = "200") -> dict[str, Any]:
    """The Status object a watch sends when its resourceVersion was compacted away."""
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": f"too old resource version: {version} ({oldest})",
        "reason": "Expired",
        "code": 410,
    }


def pod(
    name: str,
    *,
    uid: str | None = None,
    namespace: str = "ml-research",
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
    created: str = "2026-10-01T00:00:00Z",
    scheduled: str | None = None,
    node: str | None = None,
    started: str | None = None,
    finished: str | None = None,
    phase: str = "Pending",
    reason: str | None = None,
    exit_code: int | None = None,
    resources: dict[str, Any] | None = None,
    node_selector: dict[str, str] | None = None,
    owner: tuple[str, str] | None = None,
    version: str = "1",
    deletion: str | None = None,
) -> dict[str, Any]:
    """A core/v1 Pod as the API serialises it. Without `scheduled` the pod is Unschedulable."""
    conditions: list[dict[str, Any]] = []
    if scheduled:
        conditions.append({"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                           "lastTransitionTime": scheduled})  # fmt: skip
    else:
        conditions.append({"type": "PodScheduled", "status": "False", "lastProbeTime": None,
                           "lastTransitionTime": created, "reason": "Unschedulable",
                           "message": "0/3 nodes are available: 3 Insufficient nvidia.com/gpu. "
                                      "preemption: 0/3 nodes are available."})  # fmt: skip
    state: dict[str, Any] = {"waiting": {"reason": "ContainerCreating"}}
    if finished:
        state = {"terminated": {"exitCode": exit_code if exit_code is not None else 0,
                                "reason": "Completed" if not exit_code else "Error",
                                "startedAt": started, "finishedAt": finished,
                                "containerID": f"containerd://{name}"}}  # fmt: skip
    elif started:
        state = {"running": {"startedAt": started}}
    metadata: dict[str, Any] = {
        "name": name,
        "namespace": namespace,
        "uid": uid or f"uid-{name}",
        "resourceVersion": version,
        "creationTimestamp": created,
        "labels": labels or {},
        "annotations": annotations or {},
    }
    if owner:
        metadata["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": owner[0],
                                        "name": owner[1], "uid": f"uid-{owner[1]}",
                                        "controller": True, "blockOwnerDeletion": True}]  # fmt: skip
    if deletion:
        metadata["deletionTimestamp"] = deletion
        metadata["deletionGracePeriodSeconds"] = 30
    status: dict[str, Any] = {"phase": phase, "conditions": conditions, "qosClass": "Burstable"}
    if reason:
        status["reason"] = reason
        status["message"] = "The node was low on resource: memory."
    if node and started:
        status["startTime"] = scheduled
        status["containerStatuses"] = [{"name": "main", "image": "trainer:1",
                                        "imageID": "registry.example/trainer@sha256:0f3a",
                                        "containerID": f"containerd://{name}",
                                        "ready": not finished,
                                        "restartCount": 0, "started": not finished,
                                        "state": state}]  # fmt: skip
    spec: dict[str, Any] = {
        "containers": [{"name": "main", "image": "trainer:1",
                        "resources": resources or {"limits": {"nvidia.com/gpu": "8"},
                                                   "requests": {"cpu": "8", "nvidia.com/gpu": "8"}}}],
        "restartPolicy": "Never",
        "schedulerName": "default-scheduler",
    }  # fmt: skip
    if node:
        spec["nodeName"] = node
    if node_selector:
        spec["nodeSelector"] = node_selector
    return {"kind": "Pod", "apiVersion": "v1", "metadata": metadata, "spec": spec, "status": status}


class FakeApiServer:
    """Scripted list states and watch streams on 127.0.0.1 (a random port)."""

    def __init__(self, lists: list[tuple[str, list[dict[str, Any]]]], watches: list[Any]):
        self.lists = list(lists)  # (resourceVersion, pods) per full list
        self.watches = list(watches)  # each: list of events, or an HTTP status int
        self.requests: list[tuple[str, dict[str, list[str]]]] = []
        self._current: tuple[str, list[dict[str, Any]]] | None = None
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _json(self, code: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                url = urlparse(self.path)
                query = parse_qs(url.query)
                fake.requests.append((url.path, query))
                if url.path != "/api/v1/pods":
                    self._json(404, {"kind": "Status", "code": 404, "reason": "NotFound"})
                elif query.get("watch") == ["true"]:
                    self._watch()
                else:
                    self._list(query)

            def _list(self, query: dict[str, list[str]]) -> None:
                limit = int(query.get("limit", ["500"])[0])
                start = int(query.get("continue", ["0"])[0])
                if start == 0:
                    fake._current = fake.lists.pop(0) if fake.lists else fake._current
                assert fake._current is not None, "no list state scripted"
                version, pods = fake._current
                page = pods[start : start + limit]
                metadata: dict[str, Any] = {"resourceVersion": version}
                if start + limit < len(pods):
                    metadata["continue"] = str(start + limit)
                self._json(200, {"kind": "PodList", "apiVersion": "v1", "metadata": metadata,
                                 "items": page})  # fmt: skip

            def _watch(self) -> None:
                script = fake.watches.pop(0) if fake.watches else []
                if isinstance(script, int):
                    self._json(script, status_410() if script == 410 else {"code": script})
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for event in script:
                    line = (json.dumps(event) + "\n").encode()
                    self.wfile.write(f"{len(line):x}\r\n".encode() + line + b"\r\n")
                self.wfile.write(b"0\r\n\r\n")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> FakeApiServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()

    def kubeconfig(self, path: Any) -> Any:
        """A kubeconfig file pointing at this server (a bearer token, plain HTTP)."""
        path.write_text(
            json.dumps(
                {
                    "apiVersion": "v1",
                    "kind": "Config",
                    "clusters": [{"name": "local", "cluster": {"server": self.url}}],
                    "users": [{"name": "tester", "user": {"token": "test-token"}}],
                    "contexts": [
                        {"name": "local", "context": {"cluster": "local", "user": "tester"}}
                    ],
                    "current-context": "local",
                }
            )
        )
        return path
