"""Row counts and order-independent checksums of every table in a DuckDB warehouse file.

Used to show that a change to a reader leaves the warehouse identical (issue 15): record the
checksums of a fleet's warehouse before the change, rerun the fleet after it, compare.

    .venv/bin/python -m flopledger.warehouse.checksums demo/warehouse.duckdb > before.tsv
    .venv/bin/python -m flopledger.warehouse.checksums demo/warehouse.duckdb --against before.tsv

Columns that differ between any two runs by design (the run's wall clock, the snapshot's
publish time) are left out of the checksum and named in VOLATILE.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from flopledger.warehouse.base import identifier
from flopledger.warehouse.duckdb import connect

# Columns set from the wall clock when a run starts (not from the inputs).
VOLATILE = frozenset(
    {"ingested_at", "loaded_at", "raised_at", "notified_at", "quarantined_at", "built_at"}
)


def table_checksums(path: str | Path) -> dict[str, tuple[int, str]]:
    """{table: (rows, checksum)}: the checksum is the sum of every row's hash (all columns
    but VOLATILE ones), so row order does not matter and any changed value shows."""
    con = connect(path, read_only=True)
    try:
        tables = [
            r[0]
            for r in con.execute(
                "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' ORDER BY 1"
            ).fetchall()
        ]
        found = {}
        for table in tables:
            columns = [
                identifier(r[0])
                for r in con.execute(
                    "SELECT column_name FROM duckdb_columns() WHERE table_name = ? "
                    "AND schema_name = 'main' ORDER BY column_index",
                    [table],
                ).fetchall()
                if r[0] not in VOLATILE
            ]
            row = ", ".join(columns) or "1"
            count, total = con.execute(
                f"SELECT count(*), coalesce(sum(hash({row})), 0) FROM {identifier(table)}"
            ).fetchone()  # type: ignore[misc]
            found[table] = (int(count), str(total))
        return found
    finally:
        con.close()


def _read(path: Path) -> dict[str, tuple[int, str]]:
    found = {}
    for line in path.read_text().splitlines():
        table, count, total = line.split("\t")
        found[table] = (int(count), total)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("warehouse")
    parser.add_argument("--against", type=Path, help="a file this command wrote earlier")
    args = parser.parse_args(argv)
    now = table_checksums(args.warehouse)
    if args.against is None:
        for table, (count, total) in now.items():
            print(f"{table}\t{count}\t{total}")
        return 0
    before = _read(args.against)
    differ = 0
    for table in sorted(set(now) | set(before)):
        if now.get(table) != before.get(table):
            differ += 1
            print(f"DIFFERS {table}: before {before.get(table)}, now {now.get(table)}")
    print(f"{len(now)} tables, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
