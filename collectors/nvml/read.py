"""Read spool files (local paths, directories, `gs://` URIs) into one `gpu_samples` table.

A file that cannot be read (torn, not Parquet, a column named twice, missing a required
column, a column of the wrong type, a renamed column) becomes one `Quarantined` entry for the
file; a column this reader does not know beside all those it does (a newer agent's) is
ignored, the file's rows loaded, and the file named in `SpoolRead.notes`; a row with a bad value
(null key, unknown status, percentage outside 0-100, negative count, NaN) becomes one
`Quarantined` entry with the row's index and a JSON rendering of it. Nothing is
dropped silently and nothing raises. The same `sample_id` read twice (a file re-read,
an open window file shipped in two versions) is one row: the one with most samples.

`gs://` URIs go through the real google-cloud-storage client (`STORAGE_EMULATOR_HOST`
points it at an emulator).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from flopledger.collectors.files import duplicate_fields
from flopledger.collectors.gcs import parse_gs_uri, storage_client
from flopledger.collectors.limits import DEFAULT_LIMITS, Limits
from flopledger.collectors.nvml.schema import (
    COLUMNS,
    GPU_SAMPLES_SCHEMA,
    NON_NEGATIVE_COLUMNS,
    PCT_COLUMNS,
    SCHEMA_VERSION,
    SCHEMA_VERSION_KEY,
    SPOOL_COLUMNS,
    STATUSES,
)
from flopledger.collectors.nvml.spool import SUFFIX, is_spool_file
from flopledger.collectors.quarantine import Quarantined

SOURCE = "nvml_spool"
PCT_TOLERANCE = 1e-6

Loader = Callable[[], bytes]


@dataclass
class SpoolRead:
    """Counts of one `read_spool` call: rows_read = loaded + quarantined + duplicates, where a
    file refused whole counts as one row read and one quarantined."""

    rows_read: int = 0
    duplicates: int = 0
    # Per file read whole and loaded: what of it was ignored (columns a newer agent added).
    notes: dict[str, str] = dataclasses.field(default_factory=dict)


def read_spool(
    paths: Iterable[str | Path],
    *,
    client: Any | None = None,
    day: date | None = None,
    stats: SpoolRead | None = None,
    limits: Limits = DEFAULT_LIMITS,
    carry: SpoolCarry | None = None,
) -> tuple[pa.Table, list[Quarantined]]:
    """Every spool file under `paths` as one `gpu_samples` table, plus what was refused.

    With `day`, only the rows whose home day is `day` are read and counted: a row's home day
    is its minute's day, or its file's day (from the file's name) when the minute is missing
    or outside the file's two days (such a row is quarantined). Reading a window a day at a
    time so reads and counts each row and each quarantine once.

    `carry` (days read in order, one `SpoolCarry` for the window): a dated file is opened
    once, on its own day; the rows it holds of the next day wait in `carry` for that day,
    so a file is not read again for its second day."""
    stats = stats if stats is not None else SpoolRead()
    tables: list[pa.Table] = []
    quarantined: list[Quarantined] = []
    scope = _Scope(day, limits)
    for uri, load in _expand(paths, client, quarantined):
        table = _read_file(uri, load, quarantined, scope, stats, carry)
        if table is not None and table.num_rows:
            tables.append(table)
    deduped = _dedupe(tables)
    stats.duplicates += sum(t.num_rows for t in tables) - deduped.num_rows
    return deduped, quarantined


@dataclass
class SpoolCarry:
    """What a day's read of dated files leaves for the next day of the same window: per file
    read on its own day, its conformed rows of the next day and their row numbers in the
    file (a file refused whole: None). Days are read in order; a day earlier than the last
    one read starts afresh."""

    files: dict[str, tuple[pa.Table, pa.Array] | None] = dataclasses.field(default_factory=dict)
    day: date | None = None

    def take(self, uri: str, day: date) -> tuple[pa.Table, pa.Array] | None | bool:
        """The carried rows of `uri` (None: refused whole), or False when it was not read."""
        if day != self.day:
            if self.day is not None and day < self.day:
                self.files.clear()
            else:  # a file's rows run at most into its next day
                yesterday = day - timedelta(days=1)
                for uri_ in [u for u in self.files if _day_of(u) < yesterday]:
                    del self.files[uri_]
            self.day = day
        return self.files.get(uri, False)

    def left(self, uri: str, day: date, rest: tuple[pa.Table, pa.Array] | None) -> None:
        """What `uri` holds beyond `day`; kept only when `day` is the file's own day."""
        if _day_of(uri) == day:  # (an empty rest too: the file need not be read again)
            self.files[uri] = rest
        else:
            self.files.pop(uri, None)


def _day_of(uri: str) -> date:
    return spool_file_day(Path(uri)) or date.min


@dataclass(frozen=True)
class _Scope:
    day: date | None
    limits: Limits

    def owns_file(self, uri: str) -> bool:
        """A whole-file refusal is reported on its file's day (every day when unnamed)."""
        file_day = spool_file_day(Path(uri))
        return self.day is None or file_day is None or file_day == self.day


# -- finding files ------------------------------------------------------------------


def _expand(
    paths: Iterable[str | Path], client: Any | None, quarantined: list[Quarantined]
) -> list[tuple[str, Loader]]:
    found: list[tuple[str, Loader]] = []
    for path in paths:
        text = str(path)
        try:
            if isinstance(path, str) and text.startswith("gs://"):
                found.extend(_gcs_files(text, client))
            else:  # on disk: a file, a folder, or a fetched object's copy (collectors/inputs.py)
                found.extend(_local_files(Path(path) if isinstance(path, str) else path))
        except Exception as exc:  # a listing that fails is reported, not fatal
            quarantined.append(_whole_file(text, f"cannot list: {exc}"))
    return found


def _local_files(path: Path) -> list[tuple[str, Loader]]:
    """(name, loader) of a file or a folder's spool files; the name is `str(path)`, which is
    the object's gs:// URI for a fetched copy."""
    if path.is_dir():
        files = sorted(p for p in path.rglob(f"*{SUFFIX}") if is_spool_file(p))
    elif path.exists():
        files = [path]
    else:
        raise FileNotFoundError(f"no such file or directory: {path}")
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


def _read_file(
    uri: str,
    load: Loader,
    quarantined: list[Quarantined],
    scope: _Scope,
    stats: SpoolRead,
    carry: SpoolCarry | None = None,
) -> pa.Table | None:
    # Only a dated file read for a day is carried (an undated one may hold any day).
    dated = carry is not None and scope.day is not None and spool_file_day(Path(uri)) is not None
    carried = carry.take(uri, scope.day) if dated and carry and scope.day else False
    if carried is None:
        return None  # refused whole on its own day (counted there)
    if carried is not False:
        assert not isinstance(carried, bool)
        table, rows = carried
    else:
        try:
            parquet = pq.ParquetFile(pa.BufferReader(load()))
            note = _check_columns(parquet.schema_arrow)  # (a column named twice: refused)
            known = [c for c in parquet.schema_arrow.names if c in COLUMNS]
            table = _conform(parquet.read(columns=known))
        except Exception as exc:  # noqa: BLE001 - any reader failure refuses the file, with why
            reason = str(exc) if isinstance(exc, ValueError) else ""
            if not reason or isinstance(exc, pa.ArrowException):
                reason = f"unreadable Parquet (torn or not Parquet): {exc}"
            if scope.owns_file(uri):
                stats.rows_read += 1
                quarantined.append(_whole_file(uri, reason))
            if dated and carry and scope.day:
                carry.left(uri, scope.day, None)
            return None
        if note:
            stats.notes[uri] = note
        rows = pa.array(range(table.num_rows), pa.int64())
    mine = _home_mask(uri, table, scope)
    if mine is None:
        home, file_rows = table, None
    else:
        home = table.filter(mine)
        file_rows = pc.filter(rows, mine).to_pylist()
        if dated and carry and scope.day:
            others = pc.invert(mine)
            carry.left(uri, scope.day, (table.filter(others), pc.filter(rows, others)))
    stats.rows_read += home.num_rows
    return _drop_bad_rows(uri, home, quarantined, scope.limits, file_rows)


def _check_columns(schema: pa.Schema) -> str | None:
    """What the reader ignores of a file it can read by its columns (None: nothing), or a
    ValueError saying why it cannot: a column named twice; a column it does not know where
    one of the file's version is missing (a renamed column: loading it would make 11,520
    nulls of the old name); a newer version without every column this reader knows. A
    newer agent's added column beside all of those is ignored: the rows load without it."""
    twice = duplicate_fields(schema)
    if twice:
        raise ValueError(twice)
    version = _stated_version(schema)
    newer = version is not None and version not in SPOOL_COLUMNS
    unknown = sorted(c for c in schema.names if c not in COLUMNS)
    missing = [c for c in _expected(version) if c not in schema.names]
    if newer and missing:
        raise ValueError(
            f"spool schema version {version} is not one this reader knows "
            f"(1 .. {SCHEMA_VERSION}) and lacks column(s) {', '.join(missing)}: "
            "upgrade flopledger to read it"
        )
    if unknown and missing:
        raise ValueError(
            f"unknown column(s) {', '.join(unknown)} where column(s) {', '.join(missing)} of "
            f"spool schema version {version or 'unstated'} are missing (a renamed schema): "
            "file refused whole"
        )
    ignored = f"column(s) {', '.join(unknown)} ignored" if unknown else None
    if newer:
        known = f"spool schema version {version} is newer than this reader's ({SCHEMA_VERSION})"
        return f"{known}: read by the columns it knows" + (f", {ignored}" if ignored else "")
    if ignored:
        where = f"spool schema version {version}" if version else "the spool schema"
        return f"{ignored} (not in {where}; the rows loaded without them)"
    return None


def _stated_version(schema: pa.Schema) -> int | None:
    """The version a file's metadata states (None: unstated), a ValueError when it is none."""
    raw = (schema.metadata or {}).get(SCHEMA_VERSION_KEY)
    try:
        version = int(raw) if raw is not None else None
    except ValueError:
        raise ValueError(f"spool schema version {raw!r} is not a number") from None
    if version is not None and version < 1:
        raise ValueError(f"spool schema version {version} is not one (they start at 1)")
    return version


def _expected(version: int | None) -> tuple[str, ...]:
    """The columns a file of `version` carries (a newer one: every column of ours; unstated:
    those of version 1, which every version has)."""
    if version is None:
        return SPOOL_COLUMNS[1]
    return SPOOL_COLUMNS.get(version, SPOOL_COLUMNS[SCHEMA_VERSION])


def _home_days(uri: str, table: pa.Table) -> pa.ChunkedArray:
    """Each row's home day (see `read_spool`), as date32."""
    minute_day = pc.cast(table.column("minute"), pa.date32())
    file_day = spool_file_day(Path(uri))
    if file_day is None:
        return minute_day
    first, last = pa.scalar(file_day, pa.date32()), pa.scalar(file_day + timedelta(1), pa.date32())
    inside = pc.and_(pc.greater_equal(minute_day, first), pc.less_equal(minute_day, last))
    return pc.if_else(pc.fill_null(inside, False), minute_day, first)


def _home_mask(uri: str, table: pa.Table, scope: _Scope) -> pa.ChunkedArray | None:
    """Which rows' home day is the scope's (None: every row, no day given)."""
    if scope.day is None:
        return None
    return pc.fill_null(pc.equal(_home_days(uri, table), pa.scalar(scope.day, pa.date32())), False)


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


def _time_problems(uri: str, table: pa.Table, limits: Limits) -> list[tuple[str, Any]]:
    minute = table.column("minute")
    early, late = pa.scalar(limits.earliest, minute.type), pa.scalar(limits.latest, minute.type)
    checks = [
        (
            f"minute outside the plausible window {limits.earliest.date()} .. "
            f"{limits.latest.date()}",
            pc.or_(pc.less(minute, early), pc.greater(minute, late)),
        )
    ]
    file_day = spool_file_day(Path(uri))
    if file_day is not None:
        day = pc.cast(minute, pa.date32())
        first = pa.scalar(file_day, pa.date32())
        last = pa.scalar(file_day + timedelta(1), pa.date32())
        outside = pc.or_(pc.less(day, first), pc.greater(day, last))
        checks.append((f"minute outside its file's days ({file_day} and the next)", outside))
    return checks


def _row_problems(uri: str, table: pa.Table, limits: Limits) -> list[tuple[str, pa.ChunkedArray]]:
    """(reason, mask of rows with that problem) for every check."""
    checks: list[tuple[str, pa.ChunkedArray]] = list(_time_problems(uri, table, limits))
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
            bad = pc.or_kleene(bad, pc.invert(pc.is_finite(column)))
        checks.append((f"{name} negative or not finite", bad))
    return [(reason, pc.fill_null(mask, False)) for reason, mask in checks]


def _drop_bad_rows(
    uri: str,
    table: pa.Table,
    quarantined: list[Quarantined],
    limits: Limits,
    file_rows: list[int] | None = None,
) -> pa.Table:
    problems = _row_problems(uri, table, limits)
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
                SOURCE,
                uri,
                index if file_rows is None else file_rows[index],  # the row's number in its file
                "; ".join(reasons),
                json.dumps(row, default=str, sort_keys=True),
            )
        )
    return table.filter(pc.invert(any_bad)).cast(GPU_SAMPLES_SCHEMA)


def _dedupe(tables: list[pa.Table]) -> pa.Table:
    """One row per `sample_id`: the one with most samples (ties: the later file)."""
    if not tables:
        return GPU_SAMPLES_SCHEMA.empty_table()
    table = pa.concat_tables(tables)
    # A hash count finds whether any id was read twice (usually none); only then are the
    # repeated ids' rows sorted to pick each one's keeper, never the whole day.
    ids = pl.Series("sample_id", table.column("sample_id"))  # (polars counts ~15x as fast
    if ids.n_unique() < table.num_rows:  # as Arrow here: a million ids hashed on every core)
        frame = pl.from_arrow(table)
        assert isinstance(frame, pl.DataFrame)
        frame = frame.with_row_index("_order")
        twice = frame.select(pl.col("sample_id").is_duplicated()).to_series()
        again = frame.filter(twice).sort(
            ["sample_id", "samples", "_order"], descending=[False, True, True]
        )
        kept = again.unique("sample_id", keep="first", maintain_order=True)
        table = pl.concat([frame.filter(~twice), kept]).drop("_order").to_arrow()
    order = pc.sort_indices(
        table, [("minute", "ascending"), ("node", "ascending"), ("gpu_index", "ascending")]
    )
    return table.take(order).cast(GPU_SAMPLES_SCHEMA)


_FIRST_MINUTE = re.compile(r"_(\d{8})T\d{6}Z_")


def spool_file_day(path: Path) -> date | None:
    """The UTC day of a spool file's first minute, from its name (None if not named so)."""
    match = _FIRST_MINUTE.search(path.name)
    return datetime.strptime(match.group(1), "%Y%m%d").date() if match else None
