"""The one loader of SQL files, and their one header style.

Every SQL file flopledger ships (models, named queries, checks, dashboard queries and their
fragments, the queries sent to BigQuery, the statements readers run over input files) starts
with a header of `--` comment lines, each a tag:

    -- @table: what one row of the table means          (a model: raw DDL or a SELECT)
    -- @query: what one row of the result means         (everything else)
    -- @col name: what the column holds                  (models' columns)
    -- @param name: what the parameter is               (one per parameter the SQL binds)
    -- @check name (error, blocking): what it asserts   (a model's checks: models/checks/name.sql)
    -- @row: how one row of a check's result reads       (a check: {column} is put in)
    -- @grain day: hour                                 (what places a row in time: models/grain.py)

The header is the file's leading run of `--` lines: a line that is not a tag goes on with the
tag before it (`--   more text`); the first blank line or line of SQL ends it. Raw DDL documents its columns by a trailing
`-- comment` on each column instead of `@col` lines (the comment sits beside its column).

Parameters are `$name` in DuckDB's dialect and `@name` in BigQuery's; values are always
bound, never formatted into the text. A folder may hold `fragments/`: SELECTs other files
of the folder read as if they were tables (`FROM runs_in_filters AS r`), spliced in as
subqueries when the text is asked for, so every file stays a plain, parseable statement.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from flopledger.models.sql_text import named_params, without_comments

KINDS = ("table", "query")
SEVERITIES = ("error", "warn")
MAX_FRAGMENT_DEPTH = 5  # fragments reading fragments; deeper is a cycle

_TAG = re.compile(r"^--\s*@(\w+)(?:\s+(\w+))?(?:\s*\(([^)]*)\))?\s*:\s*(.*)$")
_CONTINUED = re.compile(r"^--\s*(.*)$")
_DDL_COLUMN = re.compile(r"^\s+(\w+)\s+[A-Z][^\n]*?--\s*(.+)$", re.M)
_BIGQUERY_PARAM = re.compile(r"(?<![\w@])@([A-Za-z_][A-Za-z0-9_]*)")
_STRING = re.compile(r"'(?:[^']|'')*'|`[^`]*`")
_READ = re.compile(r"\b(FROM|JOIN)(\s+)([a-z_][a-z0-9_]*)\b")


class SqlFileError(ValueError):
    """A SQL file whose header breaks the house style; the message names the file."""


@dataclass(frozen=True)
class CheckSpec:
    """A check a model declares: `-- @check name (severity[, blocking]): description`."""

    name: str
    severity: str  # error or warn
    blocking: bool
    description: str


@dataclass(frozen=True)
class SqlFile:
    """One SQL file: its name, kind, header and text."""

    path: Path
    kind: str  # table or query
    about: str  # the @table / @query text
    text: str  # the whole file, comments included
    columns: dict[str, str] = field(default_factory=dict)
    params: dict[str, str] = field(default_factory=dict)
    checks: tuple[CheckSpec, ...] = ()
    row: str | None = None  # a check's @row template
    grain: tuple[str, str, str] | None = (
        None  # @grain's (kind, flags, text), read by models/grain.py
    )

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def statement(self) -> str:
        """The SQL without its comments (what is sent to a service)."""
        return without_comments(self.text).strip()

    def params_used(self, dialect: str = "duckdb") -> frozenset[str]:
        """The parameters the SQL binds (`$name`; `@name` in BigQuery's dialect)."""
        if dialect == "bigquery":
            return frozenset(_BIGQUERY_PARAM.findall(_STRING.sub("''", self.statement)))
        return named_params(self.text)


def _fields(path: Path, lines: list[str]) -> list[tuple[str, str | None, str | None, str]]:
    """The header's tags, each (tag, name, flags, text), continuation lines joined on."""
    found: list[tuple[str, str | None, str | None, str]] = []
    for line in lines:
        tag, continued = _TAG.match(line), _CONTINUED.match(line)
        if tag:
            found.append((tag.group(1), tag.group(2), tag.group(3), tag.group(4).strip()))
        elif continued and found:
            t, name, flags, text = found[-1]
            more = continued.group(1).strip()
            found[-1] = (t, name, flags, f"{text} {more}" if more else text)
        else:
            break
    if not found or found[0][0] not in KINDS:
        raise SqlFileError(f"{path}: must start with '-- @table:' or '-- @query:'")
    return found


def _check(path: Path, name: str | None, flags: str | None, text: str) -> CheckSpec:
    words = [w.strip() for w in (flags or "").split(",") if w.strip()]
    if name is None or not words or words[0] not in SEVERITIES or set(words[1:]) - {"blocking"}:
        raise SqlFileError(
            f"{path}: a check reads '-- @check name (error|warn[, blocking]): what it asserts'"
        )
    return CheckSpec(name, words[0], "blocking" in words[1:], text)


def parse(path: Path, dialect: str = "duckdb") -> SqlFile:
    """One file, its header read and checked: one `@param` line for each parameter its SQL
    binds (in `dialect`), and none for a parameter it does not."""
    text = path.read_text()
    fields = _fields(path, text.splitlines())
    kind, about = fields[0][0], fields[0][3]
    columns: dict[str, str] = {}
    params: dict[str, str] = {}
    checks: list[CheckSpec] = []
    row = None
    grain: tuple[str, str, str] | None = None
    for tag, name, flags, value in fields[1:]:
        if tag in KINDS:
            raise SqlFileError(f"{path}: one '@table' or '@query' per file")
        if tag in ("col", "param") and name is None:
            raise SqlFileError(f"{path}: '-- @{tag} name: text'")
        if tag == "col":
            columns[str(name)] = value
        elif tag == "param":
            params[str(name)] = value
        elif tag == "check":
            checks.append(_check(path, name, flags, value))
        elif tag == "row":
            row = value
        elif tag == "grain":
            if name is None or grain is not None:
                raise SqlFileError(f"{path}: one '-- @grain day|month|run: column' per file")
            grain = (name, flags or "", value)
        else:
            raise SqlFileError(f"{path}: unknown header tag '@{tag}'")
    if kind == "table" and not columns:  # raw DDL: a trailing comment per column
        columns = {m.group(1): m.group(2).strip() for m in _DDL_COLUMN.finditer(text)}
    file = SqlFile(path, kind, about, text, columns, params, tuple(checks), row, grain)
    used = file.params_used(dialect)
    if set(params) != used:
        raise SqlFileError(
            f"{path}: parameters without an @param line {sorted(used - set(params))}, "
            f"@param lines of none {sorted(set(params) - used)}"
        )
    return file


@cache
def _names(root: Path) -> tuple[str, ...]:
    return tuple(sorted(p.stem for p in root.glob("*.sql")))


@cache
def _parsed(path: Path, dialect: str) -> SqlFile:
    return parse(path, dialect)


@dataclass(frozen=True)
class SqlFolder:
    """The SQL files of one folder (and its `fragments/`), loaded by name."""

    root: Path
    what: str  # names the folder in errors
    dialect: str = "duckdb"  # its parameters: $name (DuckDB) or @name (BigQuery)

    def names(self) -> tuple[str, ...]:
        """Every file's name (without `.sql`), sorted; fragments are not among them."""
        return _names(self.root)

    def fragment_names(self) -> tuple[str, ...]:
        return _names(self.root / "fragments")

    def file(self, name: str) -> SqlFile:
        """One file by name; a name that is not one of the folder's files is refused."""
        if name not in self.names():
            raise KeyError(f"{self.what}: no SQL file named {name!r}")
        return _parsed(self.root / f"{name}.sql", self.dialect)

    def path(self, name: str) -> Path:
        """Where `name`'s file is (or is to be: a generator writes the files it renders)."""
        return self.root / f"{name}.sql"

    def files(self) -> tuple[SqlFile, ...]:
        return tuple(self.file(n) for n in self.names())

    def fragment(self, name: str) -> SqlFile:
        if name not in self.fragment_names():
            raise KeyError(f"{self.what}/fragments: no SQL file named {name!r}")
        return _parsed(self.root / "fragments" / f"{name}.sql", self.dialect)

    def text(self, name: str) -> str:
        """The statement of `name`, comments dropped and fragments spliced in."""
        return _spliced(self, self.file(name).statement, 0)

    def params(self, name: str) -> frozenset[str]:
        """The `$name` parameters the statement binds, its fragments' included."""
        return named_params(self.text(name))


@cache
def _spliced(folder: SqlFolder, sql: str, depth: int) -> str:
    if depth > MAX_FRAGMENT_DEPTH:
        raise SqlFileError(f"{folder.what}/fragments nest deeper than {MAX_FRAGMENT_DEPTH}")
    fragments = folder.fragment_names()

    def inline(match: re.Match[str]) -> str:
        keyword, space, name = match.groups()
        if name not in fragments:
            return match.group(0)
        body = _spliced(folder, folder.fragment(name).statement, depth + 1)
        return f"{keyword}{space}(\n{body}\n)"

    return _READ.sub(inline, sql)
