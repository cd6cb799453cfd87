"""The agent's deployment files: the Kubernetes manifests validated against the API schemas
(kubernetes-validate) and checked to hang together; the systemd unit's watchdog and env file."""

from __future__ import annotations

import copy
import re
import shutil
import subprocess
import tomllib
from pathlib import Path, PurePosixPath
from typing import Any

import kubernetes_validate
import pytest
import yaml

from tests.conftest import HANG_S

REPO = Path(__file__).resolve().parents[2]
MANIFESTS = REPO / "deploy" / "daemonset.yaml"
UNIT = REPO / "deploy" / "flopledger-agent.service"
K8S_VERSION = "1.33"  # GKE's regular channel at the time of writing


def docs() -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(MANIFESTS.read_text()) if d]


def one(kind: str) -> dict[str, Any]:
    found = [d for d in docs() if d["kind"] == kind]
    assert len(found) == 1, kind
    return found[0]


def test_agent_manifests_validate_against_the_api_schemas() -> None:
    kinds = [d["kind"] for d in docs()]
    assert kinds == [
        "Namespace",
        "PriorityClass",
        "ServiceAccount",
        "ClusterRole",
        "ClusterRoleBinding",
        "ConfigMap",
        "DaemonSet",
    ]
    for doc in docs():
        assert kubernetes_validate.validate(doc, K8S_VERSION, strict=True) == K8S_VERSION


def test_agent_manifest_validation_catches_a_misspelt_field() -> None:
    """The validator is not a rubber stamp: a typo an SRE would make is refused."""
    daemonset = copy.deepcopy(one("DaemonSet"))
    container = daemonset["spec"]["template"]["spec"]["containers"][0]
    container["livenessProbe"]["httpGet"]["paht"] = container["livenessProbe"]["httpGet"].pop(
        "path"
    )
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(daemonset, K8S_VERSION, strict=True)


def args_of(container: dict[str, Any]) -> dict[str, str]:
    return dict(a.removeprefix("--").split("=", 1) for a in container["args"])


def test_agent_daemonset_hangs_together() -> None:
    """Everything the DaemonSet names is defined in the same file, for any GPU node."""
    namespace = one("Namespace")["metadata"]["name"]
    for doc in docs():
        if doc["kind"] not in ("Namespace", "PriorityClass", "ClusterRole", "ClusterRoleBinding"):
            assert doc["metadata"]["namespace"] == namespace, doc["kind"]
    daemonset = one("DaemonSet")
    pod = daemonset["spec"]["template"]["spec"]
    account = one("ServiceAccount")["metadata"]["name"]
    assert pod["serviceAccountName"] == account
    assert pod["priorityClassName"] == one("PriorityClass")["metadata"]["name"]
    binding = one("ClusterRoleBinding")
    assert binding["roleRef"]["name"] == one("ClusterRole")["metadata"]["name"]
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": account, "namespace": namespace}
    ]
    assert one("ClusterRole")["rules"] == [
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}
    ]
    selector = daemonset["spec"]["selector"]["matchLabels"]
    assert selector.items() <= daemonset["spec"]["template"]["metadata"]["labels"].items()

    # Any GKE accelerator (H100, H200, ...), not one named type.
    terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    expressions = [e for t in terms["nodeSelectorTerms"] for e in t["matchExpressions"]]
    assert {"key": "cloud.google.com/gke-accelerator", "operator": "Exists"} in expressions
    assert "nodeSelector" not in pod

    (container,) = pod["containers"]
    image, _, tag = container["image"].rpartition(":")
    version = tomllib.loads((REPO / "deploy/agent/pyproject.toml").read_text())["project"][
        "version"
    ]
    assert image.endswith("/flopledger-agent") and tag == version
    assert "command" not in container  # the image's ENTRYPOINT (flopledger agent)
    args = args_of(container)
    env = {e["name"]: e for e in container["env"]}
    assert "NVIDIA_VISIBLE_DEVICES" not in env
    assert env["FLOPLEDGER_NODE"]["valueFrom"]["fieldRef"]["fieldPath"] == "spec.nodeName"
    assert "/usr/local/nvidia/lib64" in env["LD_LIBRARY_PATH"]["value"].split(":")

    volumes = {v["name"]: v for v in pod["volumes"]}
    mounts = {m["mountPath"]: m for m in container["volumeMounts"]}
    driver = mounts["/usr/local/nvidia"]
    assert volumes[driver["name"]]["hostPath"]["path"] == "/home/kubernetes/bin/nvidia"
    # Unchecked: GPU-operator nodes (the affinity's second term) have no such directory, and
    # `Directory` (or `DirectoryOrCreate`'s empty stand-in) would fail or fake the driver there.
    assert volumes[driver["name"]]["hostPath"].get("type", "") == ""
    socket = PurePosixPath(args["pod-resources"])
    assert volumes[mounts[str(socket.parent)]["name"]]["hostPath"]["path"] == str(socket.parent)
    labels = PurePosixPath(args["node-labels"])
    config_map = volumes[mounts[str(labels.parent)]["name"]]["configMap"]["name"]
    assert config_map == one("ConfigMap")["metadata"]["name"]
    assert labels.name in one("ConfigMap")["data"]
    spool = PurePosixPath(args["spool"])
    assert any(spool.is_relative_to(m) for m in mounts if "hostPath" in volumes[mounts[m]["name"]])

    port = int(args["health"].rpartition(":")[2])
    (declared,) = container["ports"]
    assert declared["containerPort"] == port
    probe = container["livenessProbe"]["httpGet"]
    assert probe["path"] == "/healthz" and probe["port"] in (port, declared["name"])
    resources = container["resources"]
    assert set(resources["requests"]) == set(resources["limits"]) == {"cpu", "memory"}


def unit() -> dict[str, list[str]]:
    """The unit's settings, key -> every value (systemd allows repeats)."""
    text = re.sub(r"\\\n", " ", UNIT.read_text())
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, value = line.split("=", 1)
            found.setdefault(key.strip(), []).append(value.strip())
    return found


def test_agent_systemd_unit_has_env_file_and_watchdog(tmp_path: Path) -> None:
    settings = unit()
    assert settings["Type"] == ["notify"] and settings["NotifyAccess"] == ["main"]
    assert int(settings["WatchdogSec"][0]) > 0
    assert settings["EnvironmentFile"] == ["-/etc/flopledger/agent.env"]
    (start,) = settings["ExecStart"]
    assert "exec /opt/flopledger-agent/bin/flopledger agent" in start
    assert "--health" in start and "--node-labels" in start
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        return  # the static checks above still ran
    copy_ = tmp_path / UNIT.name
    copy_.write_text(UNIT.read_text())
    verified = subprocess.run(
        [analyze, "verify", str(copy_)], capture_output=True, text=True, timeout=HANG_S
    )
    assert verified.returncode == 0 and verified.stderr == "", verified.stderr
