"""Billing extracts read a file at a time in columns (issue 15), not a row at a time.

An NDJSON extract's lines go to DuckDB in one Arrow column (sql/billing_extract_lines.sql
beside this file, written from the export's schema by reader_sql.py, run by an `ArrowEngine`
the caller hands in: DuckDB's door is warehouse/arrow_sql.py). That statement parses every line against the export's schema and
writes the `billing_line_items` row of each line it can prove plain, exactly as the per-row
normaliser would (row_id included). What it cannot prove plain (a torn line, a value past a
limit, a number it would round, an unknown field, a non-ASCII or escaped string) goes to the
per-row normaliser, which loads it or quarantines it with the same reason as before. So the
warehouse is the same row for row; only the common case is fast.

A file with a carriage return (the per-row reader's universal newlines number its lines
differently) and Parquet extracts are read by the per-row reader as before.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any, Protocol

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from flopledger.collectors.accelerators import _SECONDS_PER_UNIT as SECONDS_PER_UNIT
from flopledger.collectors.files import ndjson_lines
from flopledger.collectors.gcp_billing.schema import BILLING_SCHEMA, EXPORT_PARQUET_SCHEMA
from flopledger.collectors.limits import Limits
from flopledger.collectors.skus import classify_sku
from flopledger.models.sql_files import SqlFolder
from flopledger.paths import is_glob

# The statements this reader runs (its macros, Parquet rows as lines, the lines' rows).
SQL = SqlFolder(Path(__file__).parent / "sql", "collectors/gcp_billing/sql")
BOM = b"\xef\xbb\xbf"
BATCH_LINES = 4096
# Lines DuckDB may read: printable ASCII, no backslash (so no string needs JSON escaping).
_PLAIN_LINE = re.compile(rb"\{[ -\[\]-~]*")
# The service and SKU descriptions an extract names (only to build the lookup: a row whose pair
# is not in it is sent to the normaliser).
_TEXT = rb'\{\s*"id":\s*"[^"\\]*",\s*"description":\s*"([ -!#-\[\]-~]*)"'
_SERVICE = re.compile(rb'"service":\s*' + _TEXT)
_SKU = re.compile(rb'"sku":\s*' + _TEXT)
# What collectors/skus.py says of each (service, SKU): billing_line_items' columns of the same names.
SKU_KINDS = pa.schema(
    [
        ("service_name", pa.string()),
        ("sku_description", pa.string()),
        ("accelerator_type", pa.string()),
        ("pricing_model", pa.string()),
        ("sku_kind", pa.string()),
        ("is_commitment_fee", pa.bool_()),
        ("commitment_term", pa.string()),
        ("network_traffic", pa.string()),
        ("is_egress", pa.bool_()),
    ]
)
TIMESTAMP_COLUMNS = ("usage_start_time", "usage_end_time", "export_time")
# datetime's range in microseconds since the epoch (0001-01-01 to 9999-12-31 23:59:59.999999)
PYTHON_MICROS = (-62_135_596_800_000_000, 253_402_300_799_999_999)
UNITS = pa.schema([("unit", pa.string()), ("seconds_per_unit", pa.decimal128(18, 0))])


class ArrowEngine(Protocol):
    """What the reader needs of warehouse/arrow_sql.py's ArrowSQL."""

    def define(self, sql: str) -> None: ...

    def register(self, name: str, table: pa.Table) -> None: ...

    def run(self, sql: str, params: dict[str, Any]) -> pa.Table: ...


def without_bom(data: bytes) -> bytes:
    """A UTF-8 byte order mark is not part of the first line (the per-row reader's utf-8-sig)."""
    return data[len(BOM) :] if data.startswith(BOM) else data


def _split(data: bytes) -> tuple[list[int], list[str], list[tuple[int, bytes]]]:
    """(numbers, texts) of the lines DuckDB may read, and (number, raw) of every other line
    that is not blank. Numbers are 1-based, as the per-row reader counts them."""
    data = without_bom(data)
    numbers: list[int] = []
    texts: list[str] = []
    others: list[tuple[int, bytes]] = []
    match = _PLAIN_LINE.fullmatch
    for number, raw in enumerate(data.split(b"\n"), start=1):
        text = raw.strip()
        if not text:
            continue
        if match(text):
            numbers.append(number)
            texts.append(text.decode("ascii"))
        else:
            others.append((number, raw))
    return numbers, texts, others


def sku_lookups(pairs: Iterable[tuple[str | None, str | None]]) -> tuple[pa.Table, pa.Table]:
    """The `skus` (what collectors/skus.py, the rules' one reader, says of each distinct
    (service, SKU description) pair, in SKU_KINDS columns) and `units` (seconds per usage unit)
    tables the billing SQL joins on, here, in the BigQuery export read in place and when the
    rows of an older warehouse are classified."""
    keys = sorted(set(pairs), key=lambda p: (p[1] is None, p[1] or "", p[0] is None, p[0] or ""))
    kinds = [classify_sku(sku, service) for service, sku in keys]
    skus = pa.table(
        [[k[0] for k in keys], [k[1] for k in keys]]
        + [[getattr(k, name) for k in kinds] for name in SKU_KINDS.names[2:]],
        schema=SKU_KINDS,
    )
    units = pa.table(
        [list(SECONDS_PER_UNIT), [Decimal(v) for v in SECONDS_PER_UNIT.values()]], schema=UNITS
    )
    return skus, units


def _lookups(engine: ArrowEngine, blobs: list[bytes]) -> None:
    """Every service named with every SKU named (and none: a row without one): each row's own
    pair is among them, and collectors/skus.py works out each SKU once per service its rules
    name, so a few services more cost little."""
    services: set[str | None] = {
        None,
        *(m.decode("ascii") for b in blobs for m in _SERVICE.findall(b)),
    }
    found: set[str | None] = {None, *(m.decode("ascii") for b in blobs for m in _SKU.findall(b))}
    skus, units = sku_lookups((service, sku) for service in services for sku in found)
    engine.register("skus", skus)
    engine.register("units", units)


def is_export_parquet(path: Path) -> bool:
    """A Parquet extract with exactly the export's schema whose every value Python can hold
    (anything else: the per-row reader, which quarantines what it cannot read as it always
    has). A string that is not UTF-8 fails DuckDB's whole statement, and a time past year 9999
    fails the per-row reader's to_pylist of the rows sent to it. DuckDB's read_parquet takes
    a name as a glob pattern, so a local name with a glob character goes to the per-row
    reader too (`x[1].parquet` would read `x1.parquet`)."""
    if is_glob(os.fspath(path)):
        return False
    try:
        if not pq.read_schema(path).remove_metadata().equals(EXPORT_PARQUET_SCHEMA):
            return False
        table = pq.read_table(path)
        table.validate(full=True)  # UTF-8, nested strings included
        return all(_in_python_range(table[name]) for name in TIMESTAMP_COLUMNS)
    except Exception:  # noqa: BLE001 - the per-row reader quarantines an unreadable file
        return False


def _in_python_range(column: pa.ChunkedArray) -> bool:
    low, high = pc.min_max(column.cast(pa.int64())).values()
    return low.as_py() is None or (
        PYTHON_MICROS[0] <= low.as_py() and high.as_py() <= PYTHON_MICROS[1]
    )


def _parquet_lines(
    engine: ArrowEngine, paths: list[Path]
) -> dict[str, tuple[list[int], list[str], list[int]]]:
    """Parquet extracts' rows as NDJSON lines, by file: (numbers and texts DuckDB may read,
    numbers of the other rows). One statement for all the files."""
    found: dict[str, tuple[list[int], list[str], list[int]]] = {str(p): ([], [], []) for p in paths}
    if not paths:
        return found
    # DuckDB opens the local file (a downloaded object's copy: os.fspath); rows are named by
    # the path as the per-row reader names them (str: its gs:// URI).
    named = {os.fspath(p): str(p) for p in paths}
    table = engine.run(SQL.file("billing_parquet_lines").text, {"paths": list(named)})
    match = _PLAIN_LINE.fullmatch
    columns = (table[name].to_pylist() for name in ("source", "line", "text"))
    for source, number, text in zip(*columns, strict=True):
        numbers, texts, others = found[named[source]]
        if text.isascii() and match(text.encode("ascii")):
            numbers.append(number)
            texts.append(text)
        else:
            others.append(number)
    return found


def _parquet_records(path: Path, numbers: list[int]) -> Iterator[tuple[int, Any, str]]:
    """collectors/files.py's iter_parquet for the rows given (1-based, in order)."""
    if not numbers:
        return
    rows = pq.read_table(path).take(pa.array([n - 1 for n in numbers], pa.int64())).to_pylist()
    yield from ((n, record, "") for n, record in zip(numbers, rows, strict=True))


# The largest bound the statement is given: a bound past DECIMAL(38, 9) fails the cast of the
# parameter; a smaller one only sends the (never plain) rows above it to the normaliser.
MAX_BOUND = Decimal(10) ** 28


def limit_params(ingested_at: datetime, limits: Limits) -> dict[str, Any]:
    span = limits.max_row_span
    return {
        "earliest": limits.earliest,
        "latest": limits.latest,
        "max_money": min(limits.max_money, MAX_BOUND),
        "max_usage": min(limits.max_usage, MAX_BOUND),
        "max_accelerator_seconds": min(limits.max_accelerator_seconds, MAX_BOUND),
        "max_span_us": (span.days * 86_400 + span.seconds) * 1_000_000 + span.microseconds,
        "ingested_at": ingested_at,
    }


def plain_rows(
    engine: ArrowEngine,
    extracts: list[tuple[Path, bytes | None]],
    ingested_at: datetime,
    limits: Limits,
) -> Iterator[tuple[Path, pa.Table, Iterator[tuple[int, Any, str]]]]:
    """For each extract (path, its bytes; None for a Parquet extract), in order: the rows
    DuckDB proved plain (`billing_line_items` columns), and (line, record, raw) of every
    other row, in line order, for the per-row normaliser. One statement reads all of them
    (planning it costs more than reading a small file)."""
    engine.define(SQL.file("billing_macros").text)
    parquet = _parquet_lines(engine, [path for path, data in extracts if data is None])
    sources, numbers, texts, blobs, rests = [], [], [], [], []
    read: dict[str, tuple[list[int], list[tuple[int, bytes]], list[int]]] = {}
    for path, data in extracts:
        if str(path) in read:  # an extract listed twice: its lines once, its rows for each
            rests.append(read[str(path)])
            continue
        if data is None:
            file_numbers, file_texts, other_rows = parquet[str(path)]
            blob = "\n".join(file_texts).encode("ascii")
            others: list[tuple[int, bytes]] = []
        else:
            blob, other_rows = data, []
            file_numbers, file_texts, others = _split(data)
        blobs.append(blob)
        sources += [str(path)] * len(file_numbers)
        numbers += file_numbers
        texts += file_texts
        read[str(path)] = (file_numbers, others, other_rows)
        rests.append(read[str(path)])
    _lookups(engine, blobs)
    lines = pa.table(
        {
            "source": pa.array(sources, pa.string()),
            "line": pa.array(numbers, pa.int64()),
            "text": pa.array(texts, pa.string()),
        }
    )
    # In batches, so that DuckDB's threads share the scan (one batch is one thread's).
    batches = lines.to_batches(max_chunksize=BATCH_LINES)
    engine.register("lines", pa.Table.from_batches(batches, schema=lines.schema))
    out = engine.run(SQL.file("billing_extract_lines").text, limit_params(ingested_at, limits))
    out = out.filter(out["plain"])
    for (path, data), (file_numbers, others, other_rows) in zip(extracts, rests, strict=True):
        plain = out.filter(pc.equal(out["source"], str(path))) if len(extracts) > 1 else out
        taken = set(plain["line"].to_pylist())
        left = [n for n in file_numbers if n not in taken]
        table = plain.select(BILLING_SCHEMA.names).cast(BILLING_SCHEMA)
        if data is None:
            yield path, table, _parquet_records(path, sorted(left + other_rows))
        else:
            lines = without_bom(data).split(b"\n") if left else []
            rest = sorted([(n, lines[n - 1]) for n in left] + others)
            yield path, table, _records(rest)


def _records(lines: list[tuple[int, bytes]]) -> Iterator[tuple[int, Any, str]]:
    """collectors/files.py's iter_ndjson for the lines given (decoded as it decodes them)."""
    yield from ndjson_lines((n, raw.decode("utf-8", errors="surrogateescape")) for n, raw in lines)


def in_line_order(tables: list[pa.Table]) -> pa.Table:
    """One table of the file's rows, in line order (insert_new keeps the first of a key)."""
    table = pa.concat_tables(tables)
    return table.take(pc.sort_indices(table["source_line"]))
