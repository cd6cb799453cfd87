"""Billing extract files, as a BigQuery extract writes them: NDJSON or Parquet, one format a file.

Rows are grouped by export day (the day of their `export_time`) and billing account:
`billing/<export day>/<account>-<n>.<ndjson|parquet>`. Some days also get an overlap file that
repeats some of that day's rows exactly, in the same format (as overlapping extracts do).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from flopledger.collectors.gcp_billing.schema import (
    EXPORT_FIELDS,
    EXPORT_PARQUET_SCHEMA,
    ExportField,
)
from flopledger.simulator.clock import bq_text, day_of, to_datetime
from flopledger.simulator.truth import Truth

Row = dict[str, Any]
NUMERIC_PLACES = Decimal("1e-9")
MAX_FILE_ROWS = 100_000


# How one leaf value is written: as the NDJSON extract's text, or as a Parquet column's value.
Leaf = Callable[[ExportField, Any], Any]


def _json_leaf(field: ExportField, value: Any) -> Any:
    if field.type == "TIMESTAMP":
        return bq_text(value)
    if field.type == "FLOAT":
        return float(value)
    if field.type == "NUMERIC":
        return format(Decimal(value).quantize(NUMERIC_PLACES).normalize(), "f")
    return value


def _arrow_leaf(field: ExportField, value: Any) -> Any:
    if field.type == "TIMESTAMP":
        return to_datetime(value)
    if field.type == "FLOAT":
        return float(value)
    if field.type == "NUMERIC":
        return Decimal(value).quantize(NUMERIC_PLACES)
    return value


def _value(field: ExportField, value: Any, leaf: Leaf) -> Any:
    """A field's value in the export's shape: records as dicts, repeated fields as lists."""
    if value is None:
        return [] if field.mode == "REPEATED" else None
    if field.mode == "REPEATED":
        return [_one(field, v, leaf) for v in value]
    return _one(field, value, leaf)


def _one(field: ExportField, value: Any, leaf: Leaf) -> Any:
    if field.type == "RECORD":
        return {f.name: _value(f, value.get(f.name), leaf) for f in field.fields}
    return leaf(field, value)


def ndjson_line(row: Row) -> str:
    """One row as the extract's JSON: TIMESTAMP as "... UTC" text, FLOAT as numbers,
    NUMERIC as decimal strings, repeated records as lists of objects."""
    record = {f.name: _value(f, row.get(f.name), _json_leaf) for f in EXPORT_FIELDS}
    return json.dumps(record, separators=(",", ":"))


def write_ndjson(path: Path, rows: list[Row]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(ndjson_line(row) + "\n")


def write_parquet(path: Path, rows: list[Row]) -> None:
    records = [
        {f.name: _value(f, row.get(f.name), _arrow_leaf) for f in EXPORT_FIELDS} for row in rows
    ]
    table = pa.Table.from_pylist(records, schema=EXPORT_PARQUET_SCHEMA)
    pq.write_table(table, path, compression="snappy")


WRITERS = {"ndjson": write_ndjson, "parquet": write_parquet}


class ExportWriter:
    """Buffers rows by export day and writes each day once no later usage can add to it.

    Every row goes to the truth once, when it is added (overlap copies are not rows of their own)."""

    def __init__(self, billing_dir: Path, truth: Truth, accounts: list[str]) -> None:
        self.dir = billing_dir
        self.truth = truth
        self.accounts = accounts
        self.pending: dict[date, list[Row]] = defaultdict(list)
        self.files: list[Path] = []
        self.rows_written = 0

    def add(self, rows: list[Row]) -> None:
        for row in rows:
            self.truth.add(row)
            self.pending[day_of(row["export_time"])].append(row)

    def flush(self, through: date | None = None) -> None:
        """Write every pending export day up to `through` (all of them when None)."""
        for day in sorted(self.pending):
            if through is None or day <= through:
                self._write_day(day, self.pending.pop(day))

    def _write_day(self, day: date, rows: list[Row]) -> None:
        by_account: dict[str, list[Row]] = defaultdict(list)
        for row in rows:
            by_account[row["billing_account_id"]].append(row)
        folder = self.dir / day.isoformat()
        folder.mkdir(parents=True, exist_ok=True)
        for account in sorted(by_account):
            fmt = (
                "ndjson" if (day.toordinal() + self.accounts.index(account)) % 2 == 0 else "parquet"
            )
            self._write_files(
                folder, account, fmt, by_account[account], overlap=day.toordinal() % 3 == 0
            )

    def _write_files(
        self, folder: Path, account: str, fmt: str, rows: list[Row], overlap: bool
    ) -> None:
        chunks = [rows[i : i + MAX_FILE_ROWS] for i in range(0, len(rows), MAX_FILE_ROWS)]
        for n, chunk in enumerate(chunks):
            self._write(folder / f"{account}-{n:03d}.{fmt}", fmt, chunk)
        if overlap and len(rows) >= 2:
            self._write(
                folder / f"{account}-{len(chunks):03d}-overlap.{fmt}",
                fmt,
                rows[: max(1, len(rows) // 20)],
            )

    def _write(self, path: Path, fmt: str, rows: list[Row]) -> None:
        WRITERS[fmt](path, rows)
        self.files.append(path)
        self.rows_written += len(rows)
