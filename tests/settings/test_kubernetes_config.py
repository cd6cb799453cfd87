"""sources.kubernetes in flopledger.yaml: its keys, paths made absolute, unknown keys refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from flopledger.settings import ConfigError, load_config


def test_kubernetes_source_config(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "pods").mkdir()
    config = tmp_path / "flopledger.yaml"
    config.write_text(
        "sources:\n"
        "  kubernetes:\n"
        '    paths: ["pods/*.jsonl"]\n'
        "    spool_dir: pods\n"
        "    kubeconfig: ~/.kube/config\n"
        "    context: gke_acme_us-central1_ml\n"
        "    project_id: acme-llm-prod\n"
        "    labels: {run: acme.io/run, team: acme.io/team}\n"
    )
    source = load_config(config, warn=False).sources.kubernetes
    assert source is not None
    assert source.paths == [str(tmp_path / "pods" / "*.jsonl")]
    assert source.spool_dir == str(tmp_path / "pods")
    assert source.kubeconfig == str(tmp_path / "home" / ".kube" / "config")
    assert (source.context, source.project_id, source.in_cluster) == (
        "gke_acme_us-central1_ml", "acme-llm-prod", False)  # fmt: skip
    assert source.labels == {"run": "acme.io/run", "team": "acme.io/team"}
    config.write_text("sources:\n  kubernetes:\n    label_keys: {}\n")
    with pytest.raises(ConfigError, match="sources.kubernetes.label_keys: unknown key"):
        load_config(config)
