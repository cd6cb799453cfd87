"""SQL the readers run over input files, not over the warehouse (issue 15: columnar readers).

Each file is one statement over Arrow tables a reader hands in (`lines`: line, text), run in
an in-memory DuckDB by warehouse/arrow_sql.py; it has the one header style
(models/sql_files.py).
"""

from __future__ import annotations

from pathlib import Path

from flopledger.models.sql_files import SqlFolder

READERS = SqlFolder(Path(__file__).parent, "models/readers")


def reader_sql(name: str) -> str:
    """The text of models/readers/<name>.sql; a name that is not such a file is refused."""
    return READERS.file(name).text
