"""The registry's sources: each is read from keys `flopledger.yaml` has, writes raw tables that
models/raw declares, and no two write one table; and a source is found only where configured."""

from datetime import date
from pathlib import Path

from flopledger import models
from flopledger.ingest.registry import SOURCES, input_days
from flopledger.probes.simulated import simulated_probe_rows, write_probe_jsonl
from flopledger.settings import SourcesConfig, load_config


def test_each_source_reads_config_keys_and_writes_raw_tables():
    raw = {table.name for table in models.raw_tables()}
    for source in SOURCES:
        assert set(source.config_keys()) <= set(SourcesConfig.model_fields), source.name
        assert {table.name for table in source.tables} <= raw, source.name
        assert all(table.description for table in source.tables), source.name
    written = [table.name for source in SOURCES for table in source.tables]
    assert len(written) == len(set(written))


def test_an_unconfigured_source_has_no_days(tmp_path: Path):
    # A probe file of one node's sweep on 10-02, but only sources.jobs is configured (with no
    # file): the run has no day to ingest; with sources.probes naming the file, it has 10-02.
    rows = simulated_probe_rows([("a3-1", "H100-80GB")], [date(2026, 10, 2)], seed=1)
    write_probe_jsonl(tmp_path / "p.jsonl", rows)
    config = tmp_path / "flopledger.yaml"
    config.write_text('sources:\n  jobs:\n    paths: ["jobs/*.jsonl"]\n')
    assert input_days(load_config(config)) == set()
    config.write_text('sources:\n  probes:\n    paths: ["p.jsonl"]\n')
    assert input_days(load_config(config)) == {date(2026, 10, 2)}
