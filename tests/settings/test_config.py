"""`flopledger.yaml` as load_config reads it: what is refused (in one line naming the key or
path), what only warns, and where relative paths point."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from flopledger.settings import ConfigError, load_config
from tests.conftest import source_files, write_config


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("warehouse: {kind: duckdb, pth: x}\n", "warehouse.pth: unknown key"),
        ("sources: {carrier_pigeon: {paths: []}}\n", "sources.carrier_pigeon: unknown key"),
        (
            "sources: {gcp_billing: {paths: data.ndjson}}\n",
            "sources.gcp_billing.paths: Input should be a valid list (got 'data.ndjson')",
        ),
        ("reporting_currency: EUR\n", "reporting_currency: Input should be 'USD'"),
        (
            "warehouse: {kind: bigquery, project: my-project}\n",
            "warehouse.kind bigquery needs warehouse.project and warehouse.dataset",
        ),
        (
            "warehouse: {kind: bigquery, project: my-project, dataset: 'marts; DROP'}\n",
            "warehouse.dataset: String should match pattern",
        ),
        ("- just\n- a list\n", "expected a mapping of keys at the top level"),
        ("warehouse: {kind: duckdb\n", "not valid YAML"),
    ],
)
def test_a_bad_config_is_refused_in_one_line(tmp_path, text, message):
    path = write_config(tmp_path, text)
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    assert str(refused.value).startswith(f"{path}: ")
    assert message in str(refused.value)
    assert "\n" not in str(refused.value)


def test_an_unknown_key_is_refused_naming_it(tmp_path):
    path = write_config(tmp_path, "warehouse: {path: w.duckdb}\ncolour: blue\n")
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    assert str(refused.value) == f"{path}: colour: unknown key"


def test_a_missing_config_file_is_refused(tmp_path):
    with pytest.raises(ConfigError) as refused:
        load_config(tmp_path / "nowhere.yaml")
    assert str(refused.value) == f"{tmp_path / 'nowhere.yaml'}: config file does not exist"


@pytest.mark.parametrize(
    ("text", "key", "missing"),
    [
        ("budgets: nowhere.yaml\n", "budgets", "nowhere.yaml"),
        ("sources: {jobs: {paths: [runs.jsonl, missing.jsonl]}}\n", "sources.jobs.paths[1]",
         "missing.jsonl"),
        ("sources: {cloud_monitoring: {inventory: nodes.csv}}\n",
         "sources.cloud_monitoring.inventory", "nodes.csv"),
    ],
)  # fmt: skip
def test_a_plain_path_that_does_not_exist_is_refused(tmp_path, text, key, missing):
    (tmp_path / "runs.jsonl").write_text("")  # exists: only the missing one is named
    with pytest.raises(ConfigError) as refused:
        load_config(write_config(tmp_path, text))
    # Named by key, with the path as it was resolved (absolute, beside the config file).
    assert str(refused.value) == f"{key}: {tmp_path / missing} does not exist"


def test_a_glob_matching_nothing_only_warns(tmp_path, caplog):
    path = write_config(tmp_path, "sources: {gcp_billing: {paths: ['none/*.ndjson']}}\n")
    with caplog.at_level(logging.WARNING, logger="flopledger.settings.config_file"):
        config = load_config(path)
    assert source_files(config, "gcp_billing") == []
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [f"sources.gcp_billing.paths[0]: {tmp_path}/none/*.ndjson matches no file"]


def test_relative_paths_resolve_against_the_config_files_folder(tmp_path, monkeypatch):
    folder = tmp_path / "conf"
    (folder / "billing").mkdir(parents=True)
    (folder / "billing" / "a.ndjson").write_text("")
    (folder / "budgets.yaml").write_text("")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "budgets.yaml").write_text("")  # a decoy beside the working directory
    monkeypatch.chdir(elsewhere)
    path = write_config(
        folder,
        "warehouse: {path: data/w.duckdb}\nbudgets: budgets.yaml\n"
        f"sources: {{gcp_billing: {{paths: ['billing/*.ndjson', '{tmp_path}/abs/*.parquet',"
        " 'gs://bucket/export/*.parquet']}}\n",
    )
    config = load_config(Path("..") / "conf" / "flopledger.yaml")  # itself given relative
    assert config.base_dir == str(folder)
    assert config.warehouse.path == str(folder / "data" / "w.duckdb")
    assert config.budgets == str(folder / "budgets.yaml")
    # Relative: beside the config; absolute and gs:// paths: as written.
    assert config.sources.gcp_billing.paths == [
        str(folder / "billing" / "*.ndjson"),
        f"{tmp_path}/abs/*.parquet",
        "gs://bucket/export/*.parquet",
    ]
    assert source_files(config, "gcp_billing") == [folder / "billing" / "a.ndjson"]
    assert path.parent == folder


def test_defaults_when_the_file_names_nothing(tmp_path):
    config = load_config(write_config(tmp_path, ""))
    assert config.warehouse.kind == "duckdb"
    assert config.warehouse.path == str(tmp_path / "warehouse.duckdb")
    assert (config.reporting_currency, config.allocation.run_label_key) == ("USD", "run_id")
    assert source_files(config, "jobs") == []


def test_a_quiet_load_says_nothing_of_empty_globs(tmp_path, caplog):
    # The Dagster resource rereads the file on every use: it must not repeat the warning.
    path = write_config(tmp_path, "sources: {gcp_billing: {paths: ['none/*.ndjson']}}\n")
    with caplog.at_level(logging.WARNING, logger="flopledger.settings.config_file"):
        load_config(path, warn=False)
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
