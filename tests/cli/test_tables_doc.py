"""docs/tables.md says what the warehouse's own comments say, table by table."""

from pathlib import Path

from flopledger.cli.tables_doc import MARKER, render
from flopledger.pipelines.runner import run_pipeline
from flopledger.settings import load_config
from flopledger.warehouse import open_warehouse
from tests.conftest import REPO, billing_row, run_record, write_ndjson


def test_tables_doc_matches_the_warehouse(project_dir: Path):
    write_ndjson(project_dir / "billing" / "x.ndjson", [billing_row()])
    write_ndjson(project_dir / "jobs" / "runs.jsonl", [run_record("r")])
    config = project_dir / "flopledger.yaml"
    assert run_pipeline(load_config(config), config).succeeded
    committed = (REPO / "docs" / "tables.md").read_text()
    fresh = render(open_warehouse(load_config(config).warehouse), committed)
    assert fresh.split(MARKER)[0] == committed.split(MARKER)[0], (
        "docs/tables.md is out of date: regenerate it with "
        "`.venv/bin/python -m flopledger.cli.tables_doc <flopledger.yaml> > docs/tables.md`"
    )


def test_every_table_and_column_has_a_comment(project_dir: Path):
    import duckdb

    write_ndjson(project_dir / "billing" / "x.ndjson", [billing_row()])
    config = project_dir / "flopledger.yaml"
    assert run_pipeline(load_config(config), config).succeeded
    con = duckdb.connect(str(project_dir / "w.duckdb"), read_only=True)
    missing_tables = con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE NOT internal AND (comment IS NULL OR comment = '')"
    ).fetchall()
    missing_columns = con.execute(
        "SELECT table_name || '.' || column_name FROM duckdb_columns() "
        "WHERE NOT internal AND schema_name IN ('main', 'intermediate') AND (comment IS NULL OR comment = '')"
    ).fetchall()
    con.close()
    assert missing_tables == []
    assert missing_columns == []
