"""The glob characters (paths/) are what each engine that reads a configured path takes as a
pattern: Python's glob (local paths), and DuckDB's read_parquet (columnar billing extracts),
measured on files named with each candidate character beside their twins."""

from __future__ import annotations

import glob
from pathlib import Path

import duckdb
import pytest

from flopledger.paths import GLOB_CHARS, is_glob

# Each name, and the files a pattern reading of it would take besides itself.
NAMES = {
    "a[12].parquet": {"a1.parquet", "a2.parquet"},
    "a?.parquet": {"a1.parquet", "a2.parquet"},
    "a*.parquet": {"a1.parquet", "a2.parquet", "a[12].parquet", "a{1,2}.parquet"},
    "a{1,2}.parquet": set(),  # no brace expansion
    "b]1.parquet": set(),  # a lone ]
    "c}.parquet": set(),
}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    con = duckdb.connect()
    for name in ["a1.parquet", "a2.parquet", *NAMES]:
        if "*" not in name and "?" not in name:
            path = (tmp_path / name).as_posix().replace("'", "''")
            con.execute(f"COPY (SELECT 1 AS x) TO '{path}' (FORMAT parquet)")
    con.close()
    return tmp_path


def _duckdb_reads(path: Path) -> set[str]:
    con = duckdb.connect()
    try:
        rows = con.execute("SELECT DISTINCT filename FROM read_parquet(?)", [str(path)]).fetchall()
    except duckdb.IOException:
        return set()
    finally:
        con.close()
    return {Path(r[0]).name for r in rows}


@pytest.mark.parametrize("name", list(NAMES))
def test_a_name_is_a_glob_exactly_where_duckdb_and_python_read_it_as_one(folder, name):
    python = {Path(p).name for p in glob.glob(str(folder / name))}
    duck = _duckdb_reads(folder / name)
    others = NAMES[name]
    assert python - {name} == others
    assert duck - {name} == others
    assert is_glob(name) == bool(others)


def test_the_glob_characters():
    assert frozenset("*?[") == GLOB_CHARS
    assert not is_glob("gs://bucket/billing/2026-10-01/x.ndjson")
