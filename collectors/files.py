"""Reading records out of the file formats the world writes: NDJSON, CSV, Parquet."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

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


def _parse_json(text: str) -> Any:
    try:
        return json.loads(text, parse_float=Decimal)
    except json.JSONDecodeError as exc:
        return Unreadable(f"not valid JSON ({exc.msg} at column {exc.colno})")
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


def iter_parquet(path: Path, batch_rows: int = 20_000) -> Iterator[Record]:
    """Parquet rows as dicts (nested structs and lists intact)."""
    try:
        parquet = pq.ParquetFile(path)
        row = 0
        for batch in parquet.iter_batches(batch_size=batch_rows):
            for record in batch.to_pylist():
                row += 1
                yield row, record, ""
    except Exception as exc:  # noqa: BLE001 - any reader failure is a quarantine reason
        yield None, Unreadable(f"unreadable Parquet file ({exc.__class__.__name__}: {exc})"), ""


def iter_csv(path: Path) -> Iterator[Record]:
    """CSV with a header row; every value a string (empty string for an empty cell)."""
    with path.open("r", encoding="utf-8-sig", errors="surrogateescape", newline="") as fh:
        reader = csv.DictReader(fh)
        try:
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
