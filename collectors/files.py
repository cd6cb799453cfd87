"""Reading records out of the file formats the world writes: NDJSON, CSV, Parquet."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

JSON_SUFFIXES = {".json", ".ndjson", ".jsonl"}


class Unreadable(ValueError):
    """A line or a whole file that could not be parsed; the message is the reason."""


Record = tuple[int | None, Any, str]  # (1-based line or row, parsed record or Unreadable, raw text)


def iter_ndjson(path: Path) -> Iterator[Record]:
    """Newline-delimited JSON, numbers kept exact (floats as Decimal). Blank lines are skipped."""
    with path.open("r", encoding="utf-8", errors="replace") as fh:
        for number, line in enumerate(fh, start=1):
            text = line.strip()
            if not text:
                continue
            try:
                yield number, json.loads(text, parse_float=Decimal), text
            except json.JSONDecodeError as exc:
                yield number, Unreadable(f"not valid JSON ({exc.msg} at column {exc.colno})"), text


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
    with path.open("r", encoding="utf-8-sig", errors="replace", newline="") as fh:
        reader = csv.DictReader(fh)
        for record in reader:
            raw = ",".join("" if v is None else str(v) for v in record.values())
            if None in record:
                yield reader.line_num, Unreadable("more cells than header columns"), raw
                continue
            yield reader.line_num, record, raw


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
