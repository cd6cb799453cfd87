"""sources.managed_inference in flopledger.yaml: paths made absolute, a missing price book or
export file refused in one line, unknown keys refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from flopledger.settings import ConfigError, load_config
from flopledger.settings.config_file import ManagedInferenceConfig

TEXT = """sources:
  managed_inference:
    paths: ["managed/gateway/*.ndjson"]
    price_book: managed/prices.csv
    provider_exports:
      - provider: fireworks_ai
        usage: ["managed/usage-*.json"]
        costs: [managed/costs.json]
"""


def _project(tmp_path: Path, text: str = TEXT) -> Path:
    (tmp_path / "managed" / "gateway").mkdir(parents=True)
    (tmp_path / "managed" / "prices.csv").write_text("provider\n")
    (tmp_path / "managed" / "costs.json").write_text("{}")
    (tmp_path / "managed" / "usage-2026-10-01.json").write_text("{}")
    config = tmp_path / "flopledger.yaml"
    config.write_text(text)
    return config


def test_paths_made_absolute(tmp_path: Path) -> None:
    source = load_config(_project(tmp_path), warn=False).sources.managed_inference
    assert source is not None
    managed = tmp_path / "managed"
    assert source.paths == [str(managed / "gateway" / "*.ndjson")]
    assert source.price_book == str(managed / "prices.csv")
    export = source.provider_exports[0]
    assert (export.provider, export.costs) == ("fireworks_ai", [str(managed / "costs.json")])
    assert ManagedInferenceConfig.matching(export.usage) == [managed / "usage-2026-10-01.json"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("price_book: managed/prices.csv", "sources.managed_inference.price_book: "),
        ("costs: [managed/costs.json]", "sources.managed_inference.provider_exports[0].costs[0]: "),
    ],
)
def test_missing_files_refused_in_one_line(tmp_path: Path, change: str, message: str) -> None:
    config = _project(tmp_path, TEXT.replace(change, change.replace("managed/", "gone/")))
    with pytest.raises(ConfigError) as err:
        load_config(config, warn=False)
    assert message in str(err.value) and "does not exist" in str(err.value)
    assert "\n" not in str(err.value)


def test_unknown_key_refused(tmp_path: Path) -> None:
    config = _project(
        tmp_path,
        TEXT.replace(
            "      - provider: fireworks_ai\n",
            "      - provider: fireworks_ai\n        region: us\n",
        ),
    )
    with pytest.raises(ConfigError, match="provider_exports.0.region: unknown key"):
        load_config(config, warn=False)
