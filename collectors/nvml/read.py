"""Read spool files (local paths, directories, `gs://` URIs) into one `gpu_samples` table.

A file that cannot be read (torn, not Parquet, missing a required column, a column of
the wrong type) becomes one `Quarantined` entry for the file; a row with a bad value
(null key, unknown status, percentage outside 0-100, negative count, NaN) becomes one
`Quarantined` entry with the row's index and a JSON rendering of it. Nothing is
dropped silently and nothing raises. The same `sample_id` read twice (a file re-read,
an open window file shipped in two versions) is one row: the one with most samples.

`gs://` URIs go through the real google-cloud-storage client (`STORAGE_EMULATOR_HOST`
points it at an emulator).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from collectors.gcs import parse_gs_uri, storage_client
from collectors.nvml.schema import (
    GPU_SAMPLES_SCHEMA,
    NON_NEGATIVE_COLUMNS,
    PCT_COLUMNS,
    STATUSES,
)
from collectors.nvml.spool import SUFFIX, is_spool_file
from collectors.quarantine import Quarantined

SOURCE = "nvml_spool"
PCT_TOLERANCE = 1e-6

Loader = Callable[[], bytes]


def read_spool(
    paths: Iterable[str | Path], *, client: Any | None = None
) -> tuple[pa.Table, list[Quarantined]]:
    """Every spool file under `paths` as one `gpu_samples` table, plus what was refused."""
    tables: list[pa.Table] = []
    quarantined: list[Quarantined] = []
    for uri, load in _expand(paths, client, quarantined):
        table = _read_file(uri, load, quarantined)
        if table is not None and table.num_rows:
            tables.append(table)
    return _dedupe(tables), quarantined


# -- finding files ------------------------------------------------------------------


def _expand(
    paths: Iterable[str | Path], client: Any | None, quarantined: list[Quarantined]
) -> list[tuple[str, Loader]]:
    found: list[tuple[str, Loader]] = []
    for path in paths:
        text = str(path)
        try:
            found.extend(
                _gcs_files(text, client) if text.startswith("gs://") else _local_files(text)
            )
        except Exception as exc:  # a listing that fails is reported, not fatal
            quarantined.append(_whole_file(text, f"cannot list: {exc}"))
    return found


def _local_files(text: str) -> list[tuple[str, Loader]]:
    path = Path(text)
    if path.is_dir():
        files = sorted(p for p in path.rglob(f"*{SUFFIX}") if is_spool_file(p))
    elif path.exists():
        files = [path]
    else:
        raise FileNotFoundError(f"no such file or directory: {text}")
    return [(str(p), p.read_bytes) for p in files]


def _gcs_files(uri: str, client: Any | None) -> list[tuple[str, Loader]]:
    bucket_name, prefix = parse_gs_uri(uri)
    client = client or storage_client()
    if prefix.endswith(SUFFIX):
        blobs = [client.bucket(bucket_name).blob(prefix)]
    else:
        listing = client.list_blobs(bucket_name, prefix=f"{prefix}/" if prefix else None)
        blobs = sorted(
            (b for b in listing if is_spool_file(Path(b.name))), key=lambda b: str(b.name)
        )
    return [(f"gs://{bucket_name}/{b.name}", b.download_as_bytes) for b in blobs]


# -- one file -----------------------------------------------------------------------


def _whole_file(uri: str, reason: str) -> Quarantined:
    return Quarantined(source=SOURCE, file=uri, line=None, reason=reason, raw="")


def _read_file(uri: str, load: Loader, quarantined: list[Quarantined]) -> pa.Table | None:
    try:
        table = pq.read_table(pa.BufferReader(load()))
    except Exception as exc:
        quarantined.append(_whole_file(uri, f"unreadable Parquet (torn or not Parquet): {exc}"))
        return None
    try:
        table = _conform(table)
    except ValueError as exc:
        quarantined.append(_whole_file(uri, str(exc)))
        return None
    return _drop_bad_rows(uri, table, quarantined)


def _conform(table: pa.Table) -> pa.Table:
    """The file's columns in schema order and types; absent nullable columns as nulls."""
    columns = []
    for field in GPU_SAMPLES_SCHEMA:
        if field.name not in table.column_names:
            if not field.nullable:
                raise ValueError(f"missing required column {field.name}")
            columns.append(pa.nulls(table.num_rows, field.type))
            continue
        try:
            columns.append(table.column(field.name).cast(field.type))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
            raise ValueError(f"column {field.name}: not {field.type}: {exc}") from exc
    loose = pa.schema([f.with_nullable(True) for f in GPU_SAMPLES_SCHEMA])
    return pa.Table.from_arrays(columns, schema=loose)


def _row_problems(table: pa.Table) -> list[tuple[str, pa.ChunkedArray]]:
    """(reason, mask of rows with that problem) for every check."""
    checks: list[tuple[str, pa.ChunkedArray]] = []
    for field in GPU_SAMPLES_SCHEMA:
        if not field.nullable:
            checks.append((f"{field.name} is null", pc.is_null(table.column(field.name))))
    statuses = pa.array(STATUSES)
    checks.append(
        (
            "status not one of ok/lost/not_supported",
            pc.invert(pc.is_in(table.column("status"), value_set=statuses)),
        )
    )
    for name in PCT_COLUMNS:
        column = table.column(name)
        outside = pc.or_(pc.less(column, 0.0), pc.greater(column, 100.0 + PCT_TOLERANCE))
        checks.append((f"{name} outside 0-100", pc.or_kleene(outside, pc.is_nan(column))))
    for name in NON_NEGATIVE_COLUMNS:
        column = table.column(name)
        bad = pc.less(column, 0)
        if pa.types.is_floating(column.type):
            bad = pc.or_kleene(bad, pc.is_nan(column))
        checks.append((f"{name} negative or NaN", bad))
    return [(reason, pc.fill_null(mask, False)) for reason, mask in checks]


def _drop_bad_rows(uri: str, table: pa.Table, quarantined: list[Quarantined]) -> pa.Table:
    problems = _row_problems(table)
    any_bad = pa.chunked_array([pa.array([False] * table.num_rows, pa.bool_())])
    for _, mask in problems:
        any_bad = pc.or_(any_bad, mask)
    if not pc.any(any_bad).as_py():
        return table.cast(GPU_SAMPLES_SCHEMA)
    reasons_by_row = {
        i: [r for r, m in problems if m[i].as_py()] for i in pc.indices_nonzero(any_bad).to_pylist()
    }
    for index, reasons in reasons_by_row.items():
        row = table.slice(index, 1).to_pylist()[0]
        quarantined.append(
            Quarantined(
                SOURCE, uri, index, "; ".join(reasons), json.dumps(row, default=str, sort_keys=True)
            )
        )
    return table.filter(pc.invert(any_bad)).cast(GPU_SAMPLES_SCHEMA)


def _dedupe(tables: list[pa.Table]) -> pa.Table:
    """One row per `sample_id`: the one with most samples (ties: the later file)."""
    if not tables:
        return GPU_SAMPLES_SCHEMA.empty_table()
    frame = pl.from_arrow(pa.concat_tables(tables))
    assert isinstance(frame, pl.DataFrame)
    frame = frame.with_row_index("_order").sort(
        ["sample_id", "samples", "_order"], descending=[False, True, True]
    )
    frame = frame.unique("sample_id", keep="first", maintain_order=True)
    frame = frame.sort(["minute", "node", "gpu_index"]).drop("_order")
    return frame.to_arrow().cast(GPU_SAMPLES_SCHEMA)


_FIRST_MINUTE = re.compile(r"_(\d{8})T\d{6}Z_")


def spool_file_day(path: Path) -> date | None:
    """The UTC day of a spool file's first minute, from its name (None if not named so)."""
    match = _FIRST_MINUTE.search(path.name)
    return datetime.strptime(match.group(1), "%Y%m%d").date() if match else None


def files_for(files: list[Path], days: list[date]) -> list[Path]:
    """Files that may hold minutes of `days` (a file starts at most a day before its last minute)."""
    first, last = days[0] - timedelta(days=1), days[-1]
    return [f for f in files if (d := spool_file_day(f)) is None or first <= d <= last]
