"""deploy/kube-watch.yaml: valid Kubernetes objects, least privilege, args the CLI accepts."""

from __future__ import annotations

from pathlib import Path

import kubernetes_validate
import yaml

from flopledger.cli.main import build_parser

MANIFEST = Path(__file__).resolve().parents[3] / "deploy" / "kube-watch.yaml"


def test_kubernetes_deploy_manifest_is_valid_and_reads_pods_only():
    docs = list(yaml.safe_load_all(MANIFEST.read_text()))
    for doc in docs:
        kubernetes_validate.validate(doc, "1.31", strict=True)
    kinds = {d["kind"]: d for d in docs}
    assert kinds["ClusterRole"]["rules"] == [
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]}
    ]
    container = kinds["Deployment"]["spec"]["template"]["spec"]["containers"][0]
    args = build_parser().parse_args(container["args"])
    assert (args.in_cluster, str(args.out)) == (True, "/spool/kubernetes")
