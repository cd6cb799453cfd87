"""The floor: DuckDB reading every input file of a simulated fleet once, every column, and
grouping the telemetry per resource-hour. Nothing `flopledger run` does can be faster than
reading its inputs, so the run's seconds over these seconds say how far it is from the files.

    .venv/bin/python benchmarks/floor.py FLEET_DIR

Every column is read: each query hashes every column it reads (a plain count(*) would let
DuckDB skip them). GPU spool rows and TPU Monitoring points are grouped per resource and UTC
hour (mean utilisation, energy, sample count), as the marts do.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import duckdb

INPUT_DIRS = ("billing", "jobs", "spool", "monitoring", "probes", "managed", "kubernetes")
READERS = {
    ".parquet": "read_parquet({files}, union_by_name = true)",
    ".ndjson": "read_ndjson({files}, union_by_name = true, maximum_object_size = 1000000000)",
    ".jsonl": "read_ndjson({files}, union_by_name = true, maximum_object_size = 1000000000)",
    ".json": "read_json({files}, union_by_name = true, maximum_object_size = 1000000000)",
    ".csv": "read_csv({files}, union_by_name = true)",
}


def _files(fleet: Path) -> dict[tuple[str, str], list[str]]:
    """Input files by (folder, extension)."""
    found: dict[tuple[str, str], list[str]] = {}
    for folder in INPUT_DIRS:
        for path in sorted((fleet / folder).rglob("*")):
            if path.is_file() and path.suffix in READERS:
                found.setdefault((folder, path.suffix), []).append(str(path))
    return found


def _scan(con: duckdb.DuckDBPyConnection, source: str) -> int:
    """Rows of `source`, every column hashed."""
    row = con.execute(f"SELECT count(*), sum(hash(COLUMNS(*))) FROM {source}").fetchone()
    return int(row[0]) if row else 0


def _spool(con: duckdb.DuckDBPyConnection, files: list[str]) -> int:
    source = READERS[".parquet"].format(files=files)
    row = con.execute(
        # The outer query uses every aggregate: one it ignored would be pruned, its columns unread.
        f"""SELECT count(*), sum(n), sum(util), sum(energy), sum(h) FROM (
            SELECT resource_name, date_trunc('hour', minute) AS hour, count(*) AS n,
                   avg(util_gpu_pct) AS util, sum(energy_j) AS energy,
                   sum(hash(COLUMNS(* EXCLUDE (resource_name, minute)))) AS h
            FROM {source} GROUP BY ALL)"""
    ).fetchone()
    return int(row[1] or 0) if row else 0


def _monitoring(con: duckdb.DuckDBPyConnection, files: list[str]) -> int:
    source = READERS[".json"].format(files=files)
    row = con.execute(
        f"""WITH series AS (SELECT unnest(timeSeries) AS ts FROM {source}),
        points AS (
            SELECT ts.resource.labels.node_id AS node, ts.metric.type AS metric,
                   hash(ts.metric, ts.resource, ts.metricKind, ts.valueType) AS h,
                   unnest(ts.points) AS p
            FROM series)
        SELECT count(*), sum(n), sum(v), sum(hs), sum(hp) FROM (
            SELECT node, metric, date_trunc('hour', CAST(p.interval.endTime AS TIMESTAMP)) AS hour,
                   count(*) AS n, avg(p.value.doubleValue) AS v, sum(h) AS hs, sum(hash(p)) AS hp
            FROM points GROUP BY ALL)"""
    ).fetchone()
    return int(row[1] or 0) if row else 0


def floor(fleet: Path, progress: Callable[[str], None] | None = None) -> dict:
    """Seconds and rows per input kind, and in total."""
    con = duckdb.connect()
    parts = []
    start = time.monotonic()
    for (folder, ext), files in _files(fleet).items():
        t0 = time.monotonic()
        if folder == "spool" and ext == ".parquet":
            rows = _spool(con, files)
        elif folder == "monitoring" and ext == ".json":
            rows = _monitoring(con, files)
        else:
            rows = _scan(con, READERS[ext].format(files=files))
        seconds = time.monotonic() - t0
        parts.append({"input": f"{folder}/*{ext}", "files": len(files), "rows": rows, "s": seconds})
        if progress:
            progress(f"floor {folder}/*{ext}: {len(files):,} files, {rows:,} rows, {seconds:.1f} s")
    con.close()
    return {"seconds": time.monotonic() - start, "parts": parts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fleet", type=Path)
    args = parser.parse_args()
    result = floor(args.fleet, lambda m: print(m, file=sys.stderr, flush=True))
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
