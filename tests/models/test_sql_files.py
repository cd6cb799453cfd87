"""Every SQL file has the one header style and is read by the one loader; a model's upstreams
come from its SQL; every check a model declares has its SQL, and every check SQL a declaration."""

from __future__ import annotations

import ast
import json
import re
import subprocess
from pathlib import Path

import pytest

from flopledger import models
from flopledger.models.lineage import tables_read
from flopledger.models.sql_files import SqlFileError, SqlFolder, parse
from tests.conftest import REPO
from tests.test_layout import ROOMS

MODEL_FOLDERS = (
    "models/raw/",
    "models/intermediate/",
    "models/marts/",
    "models/bookkeeping/",
)


def shipped_sql() -> list[str]:
    """Every SQL file in the repository's rooms (tests' own fixtures aside)."""
    tracked = subprocess.run(
        ["git", "ls-files", "*.sql"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    return [p for p in tracked if not p.startswith("tests/")]


@pytest.mark.parametrize("path", shipped_sql())
def test_every_sql_file_has_the_one_header_style(path: str) -> None:
    dialect = "bigquery" if path.startswith("models/bigquery/") else "duckdb"
    file = parse(REPO / path, dialect)  # each parameter it binds has its @param line
    assert file.kind == ("table" if path.startswith(MODEL_FOLDERS) else "query"), path
    assert file.about.endswith("."), f"{path}: the header's first tag is a sentence"


def _sql_names(path: Path) -> list[str]:
    """String constants (f-string parts too) naming a `.sql` file, docstrings aside."""
    tree = ast.parse(path.read_text())
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    return [
        f"{path.relative_to(REPO)}:{node.lineno}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docs
        and re.search(r"\.sql\b", node.value)
    ]


def test_no_room_reads_sql_files_but_the_loader() -> None:
    """Only models/ names SQL files (the loader, and functions.sql for the warehouses)."""
    rooms = [p for p in REPO.glob("*/**/*.py") if p.relative_to(REPO).parts[0] in ROOMS]
    found = [
        hit for p in rooms if p.relative_to(REPO).parts[0] != "models" for hit in _sql_names(p)
    ]
    assert found == []


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.sql"
    path.write_text(text)
    return path


def test_a_header_is_its_tags_with_their_continued_lines(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "spend",
        "-- @query: One day's spend,\n"
        "--   by team.\n"
        "-- @param day: the UTC day\n"
        "--   (DATE).\n"
        "\n"
        "-- not the header any more\n"
        "SELECT team, sum(cost) AS cost FROM spend_daily WHERE day = $day GROUP BY team\n",
    )
    file = parse(path)
    assert (file.kind, file.about) == ("query", "One day's spend, by team.")
    assert file.params == {"day": "the UTC day (DATE)."}
    assert file.params_used() == {"day"}


def test_a_check_declaration_reads_name_severity_and_blocking(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "books",
        "-- @table: The books.\n"
        "-- @check books_close (error, blocking): They close.\n"
        "-- @check nothing_quarantined (warn): Nothing refused.\n"
        "-- @col check_name: What is compared.\n"
        "SELECT 'total' AS check_name\n",
    )
    checks = parse(path).checks
    assert [(c.name, c.severity, c.blocking, c.description) for c in checks] == [
        ("books_close", "error", True, "They close."),
        ("nothing_quarantined", "warn", False, "Nothing refused."),
    ]


@pytest.mark.parametrize(
    "header",
    [
        "-- A query without its tag.\n",  # prose first
        "-- @query: Two kinds.\n-- @table: In one file.\n",
        "-- @query: An unknown tag.\n-- @depends: spend_daily\n",
        "-- @table: A check without a severity.\n-- @check c: what.\n",
        "-- @table: A check of another severity.\n-- @check c (fatal): what.\n",
        "-- @query: A parameter without its line.\nSELECT $day\n",
        "-- @query: A line for no parameter.\n-- @param day: the day\n",
    ],
)
def test_a_header_off_the_house_style_is_refused_naming_the_file(
    tmp_path: Path, header: str
) -> None:
    path = _write(tmp_path, "bad", header + "SELECT 1\n")
    with pytest.raises(SqlFileError, match=re.escape(str(path))):
        parse(path)


def test_fragments_are_spliced_in_as_subqueries_and_their_parameters_count(tmp_path: Path) -> None:
    _write(
        tmp_path / "fragments",
        "recent",
        "-- @query: Recent spend.\n-- @param since: the first day\n"
        "SELECT * FROM spend_daily WHERE day >= $since\n",
    )
    _write(tmp_path, "by_team", "-- @query: By team.\nSELECT team FROM recent AS r\n")
    folder = SqlFolder(tmp_path, "here")
    assert folder.names() == ("by_team",)
    assert folder.text("by_team") == (
        "SELECT team FROM (\nSELECT * FROM spend_daily WHERE day >= $since\n) AS r"
    )
    assert folder.params("by_team") == {"since"}
    with pytest.raises(KeyError, match="here: no SQL file named 'recent'"):
        folder.file("recent")


def test_the_tables_a_statement_reads_leave_out_its_ctes_functions_and_catalogue() -> None:
    sql = """
    WITH hours AS (SELECT * FROM billing_hourly), days AS (SELECT * FROM hours)
    SELECT * FROM days
    JOIN jobs USING (run_id)
    CROSS JOIN unnest(generate_series(1, 3)) AS g(n)
    WHERE EXISTS (SELECT 1 FROM information_schema.tables)
      AND run_id IN (SELECT run_id FROM run_allocation)
    """
    assert tables_read(sql) == {"billing_hourly", "jobs", "run_allocation"}


def test_every_model_is_built_after_every_model_it_reads() -> None:
    order = [m.name for m in models.marts()]
    for i, m in enumerate(models.marts()):
        assert m.depends_on == tuple(sorted(tables_read(m.sql) - {m.name}))
        assert not set(m.depends_on) & set(order[i:]), m.name


def test_every_declared_check_has_its_sql_and_every_check_sql_is_declared_once() -> None:
    declared = [c.name for m in (*models.raw_tables(), *models.marts()) for c in m.checks]
    assert sorted(declared) == sorted(set(declared))  # a check name is one check
    assert sorted(declared) == list(models.CHECKS.names())
    assert all(models.CHECKS.file(name).row for name in declared), "each says how a row reads"


def test_dashboards_and_reports_read_no_intermediate_table() -> None:
    """The intermediate tables are not published to readers (BigQuery's dashboard role sees the
    marts only): pages and the month report read marts."""
    from flopledger.dashboards import queries

    readers = [queries.text(n) for n in queries.names()]
    readers += [models.query_sql(n) for n in models.QUERIES.names() if n.startswith("month_report")]
    intermediate = models.intermediate_tables()
    assert [
        sorted(tables_read(sql) & intermediate)
        for sql in readers
        if tables_read(sql) & intermediate
    ] == []


def test_what_a_statement_reads_is_kept_across_processes_and_a_bad_copy_is_parsed_past(
    tmp_path, monkeypatch
):
    from flopledger.models import lineage

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    lineage._CACHE_FOLDER.cache_clear()
    lineage.tables_read.cache_clear()
    try:
        sql = "WITH j AS (SELECT * FROM jobs) SELECT * FROM j JOIN billing_hourly USING (day)"
        assert lineage.tables_read(sql) == {"jobs", "billing_hourly"}
        (kept,) = tmp_path.glob("flopledger/lineage-*/*.json")
        assert sorted(json.loads(kept.read_text())) == ["billing_hourly", "jobs"]
        kept.write_text("{not json")  # a torn or foreign file: parsed again, not trusted
        lineage.tables_read.cache_clear()
        assert lineage.tables_read(sql) == {"jobs", "billing_hourly"}
    finally:
        lineage._CACHE_FOLDER.cache_clear()
        lineage.tables_read.cache_clear()
