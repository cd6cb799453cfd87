"""Read run records: the jobs file (JSONL, CSV, Parquet) and Slurm `sacct --json` documents."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa

from flopledger.collectors.files import (
    DuplicateKey,
    Unreadable,
    iter_records,
    load_document,
    raw_text,
)
from flopledger.collectors.jobs.records import BadRecord, normalise_job
from flopledger.collectors.jobs.sacct import NotARun, is_sacct_document, sacct_run_record
from flopledger.collectors.jobs.schema import JOBS_SCHEMA, PLACEMENTS_SCHEMA
from flopledger.collectors.limits import DEFAULT_LIMITS, Limits
from flopledger.collectors.quarantine import Quarantined

SOURCE = "jobs"
# What a record of an unforeseen shape may raise deep in normalising; quarantined, named.
UNEXPECTED = (TypeError, ValueError, ArithmeticError, KeyError, AttributeError, RecursionError)


@dataclass
class JobsRead:
    """Runs and placements read, and what was quarantined.
    rows_read = runs + quarantined + duplicates (a run_id's earlier records)."""

    jobs: pa.Table
    placements: pa.Table
    quarantined: list[Quarantined] = field(default_factory=list)
    rows_read: int = 0
    duplicates: int = 0


def _sacct_records(path: Path, limits: Limits) -> Iterator[tuple[int | None, Any, str, str]] | None:
    """If the file is one sacct --json document, its jobs as (index, record, raw, scheduler)."""
    if path.suffix.lower() != ".json":
        return None
    try:
        document = load_document(path.read_text(encoding="utf-8-sig"), parse_float=Decimal)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        return None  # maybe NDJSON: read line by line
    except DuplicateKey as exc:  # one document naming a key twice: which is meant is unknown
        return iter([(None, Unreadable(f"{exc}: the file is refused whole"), "", "slurm")])
    if not is_sacct_document(document):
        return None

    def records() -> Iterator[tuple[int | None, Any, str, str]]:
        for i, job in enumerate(document["jobs"], start=1):
            raw = json.dumps(job, default=str)[:20_000]
            try:
                yield i, sacct_run_record(job, limits.max_nodes_per_job), raw, "slurm"
            except (NotARun, TypeError, ValueError, AttributeError, KeyError, OverflowError) as exc:
                job_id = job.get("job_id") if isinstance(job, dict) else None
                yield i, Unreadable(f"sacct job {job_id}: {exc}"), raw, "slurm"

    return records()


def _file_records(path: Path, limits: Limits) -> Iterator[tuple[int | None, Any, str, str]]:
    sacct = _sacct_records(path, limits)
    if sacct is not None:
        yield from sacct
        return
    for line, record, raw in iter_records(path):
        yield line, record, raw, "jobs_file"


def _unexpected(exc: Exception) -> str:
    return f"unreadable record ({exc.__class__.__name__}: {str(exc)[:200]})"


def read_jobs_files(files: list[Path], limits: Limits = DEFAULT_LIMITS) -> JobsRead:
    """Every run record of the files. A run_id seen again replaces the earlier record
    (files in name order, lines in order): the newest state of a run wins, and the record it
    replaced is counted in `duplicates`. rows_read = runs + quarantined + duplicates."""
    runs: dict[str, dict[str, Any]] = {}
    placements: dict[str, list[dict[str, Any]]] = {}
    quarantined: list[Quarantined] = []
    read = duplicates = 0
    for path in files:
        for line, record, raw, scheduler in _file_records(path, limits):
            read += 1
            try:
                if isinstance(record, Unreadable):
                    raise BadRecord(str(record))
                run, held = normalise_job(record, str(path), line or 0, scheduler, limits)
            except UNEXPECTED as exc:  # BadRecord, or a shape no check foresaw: a reason
                reason = str(exc) if isinstance(exc, BadRecord) else _unexpected(exc)
                quarantined.append(
                    Quarantined(SOURCE, str(path), line, reason, raw_text(record, raw))
                )
                continue
            duplicates += run["run_id"] in runs
            runs[run["run_id"]] = run
            placements[run["run_id"]] = held
    return JobsRead(
        jobs=pa.Table.from_pylist(list(runs.values()), schema=JOBS_SCHEMA),
        placements=pa.Table.from_pylist(
            [p for held in placements.values() for p in held], schema=PLACEMENTS_SCHEMA
        ),
        quarantined=quarantined,
        rows_read=read,
        duplicates=duplicates,
    )
