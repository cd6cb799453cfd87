"""`flopledger run` materialises the days the pods' runs were submitted on (sources.kubernetes)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from flopledger.ingest.registry import input_days
from flopledger.settings import load_config


def test_kubernetes_pod_days_are_input_days(tmp_path: Path) -> None:
    pod = {
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "ml", "uid": "u-1",
                     "creationTimestamp": "2026-10-03T23:59:00Z", "labels": {"run_id": "r"}},
        "spec": {"containers": [{"name": "m", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
        "status": {"phase": "Pending"},
    }  # fmt: skip
    (tmp_path / "pods.json").write_text(json.dumps({"kind": "List", "items": [pod]}))
    config = tmp_path / "flopledger.yaml"
    config.write_text('sources:\n  kubernetes:\n    paths: ["pods.json"]\n')
    assert input_days(load_config(config)) == {date(2026, 10, 3)}
