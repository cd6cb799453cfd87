"""Who this node is in the bill: node name, project and the billed VM (`resource_name`).

From the node-labels file (YAML or JSON: `node`, `project_id`, `resource_name`), with
the GCE metadata server filling what the file leaves out, and the host name as `node`.
On Kubernetes, `kube_pod_uid` asks the API server for a pod's UID (the kubelet's
PodResources API names pods but gives no UID) with the pod's service-account token.
"""

from __future__ import annotations

import logging
import os
import socket
from dataclasses import dataclass
from pathlib import Path

import yaml

log = logging.getLogger(__name__)

LABEL_KEYS = ("node", "project_id", "resource_name")
METADATA_PATHS = {"resource_name": "instance/name", "project_id": "project/project-id"}
SERVICE_ACCOUNT_DIR = Path("/var/run/secrets/kubernetes.io/serviceaccount")


@dataclass(frozen=True)
class NodeLabels:
    """Identity columns every row of this node carries."""

    node: str
    project_id: str | None = None
    resource_name: str | None = None


def read_labels_file(path: Path) -> dict[str, str]:
    """The labels file's keys; a ValueError naming the file for anything else."""
    try:
        data = yaml.safe_load(path.read_text())  # JSON is YAML too
    except (OSError, yaml.YAMLError) as exc:
        raise ValueError(f"node labels file {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise ValueError(f"node labels file {path}: expected a mapping of {LABEL_KEYS}")
    unknown = sorted(set(data) - set(LABEL_KEYS))
    if unknown:
        raise ValueError(f"node labels file {path}: unknown keys {unknown}; allowed {LABEL_KEYS}")
    return {k: str(v) for k, v in data.items() if v is not None}


def gce_metadata(key: str, timeout_s: float = 1.0) -> str | None:
    """One value from the GCE metadata server (`GCE_METADATA_HOST` overrides the host)."""
    import requests

    host = os.environ.get("GCE_METADATA_HOST", "metadata.google.internal")
    url = f"http://{host}/computeMetadata/v1/{METADATA_PATHS[key]}"
    try:
        reply = requests.get(url, headers={"Metadata-Flavor": "Google"}, timeout=timeout_s)
    except requests.RequestException:
        return None
    return reply.text.strip() if reply.ok and reply.text.strip() else None


def load_node_labels(path: Path | None, *, use_metadata: bool = True) -> NodeLabels:
    """The node's labels: file first, then the metadata server; node from the file,
    else `$FLOPLEDGER_NODE` (a DaemonSet sets it to the Kubernetes node), else the host name.
    """
    found = read_labels_file(path) if path is not None else {}
    if use_metadata:
        for key in ("project_id", "resource_name"):
            if key not in found and (value := gce_metadata(key)) is not None:
                found[key] = value
    node = found.get("node") or os.environ.get("FLOPLEDGER_NODE") or socket.gethostname()
    labels = NodeLabels(node, found.get("project_id"), found.get("resource_name"))
    if labels.resource_name is None:
        log.warning(
            "node %s: no resource_name (billed VM name); rows will not join to billing", node
        )
    return labels


def kube_api_url() -> str | None:
    """The API server seen from a pod (`$FLOPLEDGER_KUBE_API` overrides; None off Kubernetes)."""
    if override := os.environ.get("FLOPLEDGER_KUBE_API"):
        return override.rstrip("/")
    host, port = (
        os.environ.get("KUBERNETES_SERVICE_HOST"),
        os.environ.get("KUBERNETES_SERVICE_PORT"),
    )
    if not host:
        return None
    host = f"[{host}]" if ":" in host else host
    return f"https://{host}:{port or 443}"


def kube_pod_uid(
    namespace: str,
    name: str,
    *,
    api_url: str | None = None,
    account_dir: Path = SERVICE_ACCOUNT_DIR,
    timeout_s: float = 2.0,
) -> str | None:
    """`metadata.uid` of pod `namespace/name` (RBAC: get pods), or None if not answered."""
    import requests

    url = api_url or kube_api_url()
    if url is None:
        return None
    token_file, ca_file = account_dir / "token", account_dir / "ca.crt"
    headers = {"Accept": "application/json"}
    if token_file.exists():
        headers["Authorization"] = f"Bearer {token_file.read_text().strip()}"
    verify: bool | str = str(ca_file) if ca_file.exists() else True
    try:
        reply = requests.get(
            f"{url}/api/v1/namespaces/{namespace}/pods/{name}",
            headers=headers,
            timeout=timeout_s,
            verify=verify,
        )
        uid = reply.json().get("metadata", {}).get("uid") if reply.ok else None
    except (requests.RequestException, ValueError, AttributeError) as exc:
        log.warning("pod %s/%s: no UID from the Kubernetes API: %s", namespace, name, exc)
        return None
    if uid is None:
        log.warning(
            "pod %s/%s: no UID from the Kubernetes API (HTTP %s)",
            namespace,
            name,
            reply.status_code,
        )
    return str(uid) if uid else None
