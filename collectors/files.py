"""Reading records out of the file formats the world writes: NDJSON, CSV, Parquet."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

JSON_SUFFIXES = {".json", ".ndjson", ".jsonl"}


class Unreadable(ValueError):
    """A line or a whole file that could not be parsed; the message is the reason."""


Record = tuple[int | None, Any, str]  # (1-based line or row, parsed record or Unreadable, raw text)


def _invalid_utf8(text: str) -> str | None:
    """For text decoded with `surrogateescape`: None when it was valid UTF-8, else the
    reason. Invalid bytes are never rewritten (U+FFFD would make `llm\xff` a new team)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"invalid UTF-8 (byte 0x{ord(text[exc.start]) & 0xFF:02x} at column {exc.start + 1})"
    return None


def kept_bytes(text: str) -> str:
    """Text decoded with `surrogateescape` as storable text: invalid bytes as \\xNN escapes."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


class DuplicateKey(ValueError):
    """A JSON object naming a key twice (`unique_keys`); the message says which."""


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's members as a dict; an object naming a key twice (`{"cost": 1.00,
    "cost": 999999.00}`) is refused, as a table naming a column twice is: which of the two a
    record means cannot be told, and json.loads would keep the last silently."""
    record = dict(pairs)
    if len(record) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(f"duplicate key {key!r} in one JSON object")
            seen.add(key)
    return record


def load_document(text: str, **options: Any) -> Any:
    """`json.loads` of a file that may be one JSON document, every object's keys unique:
    DuplicateKey when it is one document naming a key twice; JSONDecodeError, as json.loads
    says, when it is not one document (NDJSON, say, whose lines are then read one by one)."""
    try:
        return json.loads(text, object_pairs_hook=unique_keys, **options)
    except DuplicateKey:
        json.loads(text, **options)  # not one document: JSONDecodeError
        raise


def _parse_json(text: str) -> Any:
    try:
        return json.loads(text, parse_float=Decimal, object_pairs_hook=unique_keys)
    except json.JSONDecodeError as exc:
        return Unreadable(f"not valid JSON ({exc.msg} at column {exc.colno})")
    except DuplicateKey as exc:
        return Unreadable(str(exc))
    except (ValueError, RecursionError) as exc:  # a 5,000-digit integer, nesting 10,000 deep
        return Unreadable(f"not readable JSON ({exc.__class__.__name__}: {str(exc)[:200]})")


def iter_ndjson(path: Path) -> Iterator[Record]:
    """Newline-delimited JSON, numbers kept exact (floats as Decimal). Blank lines are skipped;
    a UTF-8 byte order mark is not part of the first line; a line with invalid UTF-8 is
    Unreadable, its bytes kept as escapes."""
    with path.open("r", encoding="utf-8-sig", errors="surrogateescape") as fh:
        yield from ndjson_lines(enumerate(fh, start=1))


def ndjson_lines(lines: Iterable[tuple[int, str]]) -> Iterator[tuple[int, Any, str]]:
    """Numbered lines (decoded with errors="surrogateescape") as iter_ndjson reads them."""
    for number, line in lines:
        text = line.strip()
        if not text:
            continue
        invalid = _invalid_utf8(text)
        if invalid:
            yield number, Unreadable(invalid), kept_bytes(text)
            continue
        yield number, _parse_json(text), text


def duplicate_columns(names: Iterable[str], within: str = "") -> str | None:
    """Why a table naming a column twice is refused whole (which of the two a row means cannot
    be told: a reader keeping one would load a `BilledCost` of 999999.00 beside an
    `EffectiveCost` of 1.00), or None when every name is given once. `within` is the path of
    the struct whose fields they are (`labels.element.`)."""
    where: dict[str, list[int]] = {}
    for number, name in enumerate(names, start=1):
        where.setdefault(name, []).append(number)
    twice = [
        f"{within + name!r} (columns {', '.join(map(str, at))})"
        for name, at in where.items()
        if len(at) > 1
    ]
    if not twice:
        return None
    return f"duplicate column name {'; '.join(twice)}: the file is refused whole"


def _nested_fields(kind: pa.DataType) -> list[pa.Field]:
    if isinstance(kind, pa.StructType):
        return [kind.field(i) for i in range(kind.num_fields)]
    if isinstance(kind, (pa.ListType, pa.LargeListType, pa.FixedSizeListType)):
        return [kind.value_field]
    if isinstance(kind, pa.MapType):
        return [kind.key_field, kind.item_field]
    return []


def duplicate_fields(schema: pa.Schema) -> str | None:
    """`duplicate_columns` of a Parquet or Arrow schema: its columns, and the fields of every
    struct in it (Parquet allows both to repeat a name; a row as a dict keeps only one)."""
    pending: list[tuple[str, list[pa.Field]]] = [("", list(schema))]
    while pending:
        within, fields = pending.pop(0)
        reason = duplicate_columns([f.name for f in fields], within)
        if reason:
            return reason
        for f in fields:
            children = _nested_fields(f.type)
            if children:
                pending.append((f"{within}{f.name}.", children))
    return None


def iter_parquet(path: Path, batch_rows: int = 20_000) -> Iterator[Record]:
    """Parquet rows as dicts (nested structs and lists intact). A file naming a column twice is
    one Unreadable (line None) for the whole file."""
    try:
        parquet = pq.ParquetFile(path)
        twice = duplicate_fields(parquet.schema_arrow)
        if twice:
            yield None, Unreadable(twice), ""
            return
        row = 0
        for batch in parquet.iter_batches(batch_size=batch_rows):
            for record in batch.to_pylist():
                row += 1
                yield row, record, ""
    except Exception as exc:  # noqa: BLE001 - any reader failure is a quarantine reason
        yield None, Unreadable(f"unreadable Parquet file ({exc.__class__.__name__}: {exc})"), ""


def iter_csv(path: Path) -> Iterator[Record]:
    """CSV with a header row; every value a string (empty string for an empty cell). A header
    naming a column twice is one Unreadable (line None, the header as raw) for the whole file."""
    with path.open("r", encoding="utf-8-sig", errors="surrogateescape", newline="") as fh:
        reader = csv.DictReader(fh)
        try:
            header = reader.fieldnames or []
            twice = duplicate_columns(header)
            if twice:
                yield None, Unreadable(twice), kept_bytes(",".join(header))
                return
            for record in reader:
                raw = ",".join("" if v is None else str(v) for v in record.values())
                if None in record:
                    yield reader.line_num, Unreadable("more cells than header columns"), raw
                    continue
                invalid = _invalid_utf8(raw + ",".join(k or "" for k in record))
                if invalid:
                    yield reader.line_num, Unreadable(invalid), kept_bytes(raw)
                    continue
                yield reader.line_num, record, raw
        except csv.Error as exc:  # a NUL byte, a field past csv's size limit
            yield reader.line_num, Unreadable(f"unreadable CSV ({exc})"), ""


def iter_records(path: Path) -> Iterator[Record]:
    """Records of a file, by its suffix."""
    suffix = path.suffix.lower()
    if suffix in JSON_SUFFIXES:
        return iter_ndjson(path)
    if suffix == ".parquet":
        return iter_parquet(path)
    if suffix == ".csv":
        return iter_csv(path)
    return iter([(None, Unreadable(f"unknown file type {suffix!r}"), "")])


def raw_text(record: Any, raw: str) -> str:
    """The text to keep for a quarantined record: its line, or a JSON rendering of a Parquet row."""
    return raw or json.dumps(record, default=str, sort_keys=True)
