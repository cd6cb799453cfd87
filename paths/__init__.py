"""What makes a path a pattern: the one set of glob characters (issue 34).

A path in flopledger.yaml is a glob when it holds one of them: settings/ checks such a path
loosely (it may match nothing yet), collectors/inputs.py lists it (locally with Python's glob,
in Cloud Storage with its own matcher of the same syntax) and cuts its literal prefix at the
first one, and collectors/gcp_billing/columnar.py keeps a file whose name holds one away from
DuckDB's read_parquet, which would take the name as a pattern. All three engines take the same
characters: `*` (and `**`), `?` and `[`. DuckDB's readers, like Python's glob, read `{`, `}`
and a `]` without a `[` literally (no brace expansion): tests/paths/test_globs.py measures it.
"""

from __future__ import annotations

GLOB_CHARS = frozenset("*?[")


def is_glob(path: str) -> bool:
    """Whether `path` is a pattern rather than one name."""
    return any(c in GLOB_CHARS for c in path)
