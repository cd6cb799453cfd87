"""SQL the readers run over input files, not over the warehouse (issue 15: columnar readers).

Each file is one statement over Arrow tables a reader hands in (`lines`: line, text), run in
an in-memory DuckDB by warehouse/arrow_sql.py; it starts with `-- @query:` and one
`-- @param name: text` line per `$name` parameter, as models/queries/ do.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

READERS_DIR = Path(__file__).parent


@cache
def reader_sql(name: str) -> str:
    """The text of models/readers/<name>.sql; a name that is not such a file is refused."""
    path = READERS_DIR / f"{name}.sql"
    if "/" in name or not path.is_file():
        raise KeyError(f"models/readers: no reader query named {name!r}")
    return path.read_text()
