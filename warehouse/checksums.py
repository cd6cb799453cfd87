"""Row counts and order-independent checksums of every table in a DuckDB warehouse file
(main's tables by name, those of another schema, such as the intermediate tables, qualified).

Used to show that a change to a reader leaves the warehouse identical (issue 15): record the
checksums of a fleet's warehouse before the change, rerun the fleet after it, compare.

    .venv/bin/python -m flopledger.warehouse.checksums demo/warehouse.duckdb > before.tsv
    .venv/bin/python -m flopledger.warehouse.checksums demo/warehouse.duckdb --against before.tsv

Where the fleet was run in another folder, give `--root` (the folder each time) to both.

Columns that differ between any two runs by design (the run's wall clock, the snapshot's
publish time) are left out of the checksum and named in VOLATILE; so is the warehouse's own
bookkeeping schema (what was built when: an incremental and a full build differ there by design).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from flopledger.models import BOOKKEEPING_SCHEMA
from flopledger.warehouse.base import identifier
from flopledger.warehouse.duckdb import WALL_CLOCK_COLUMNS, connect

# Columns set from the wall clock when a run starts (not from the inputs).
VOLATILE = WALL_CLOCK_COLUMNS


def table_checksums(path: str | Path, root: str | None = None) -> dict[str, tuple[int, str]]:
    """{table: (rows, checksum)}: the checksum is the sum of every row's hash (all columns
    but VOLATILE ones), so row order does not matter and any changed value shows. With `root`
    (the folder the inputs were read from), text columns are hashed with `root` cut out of
    them, so two copies of one fleet in two folders compare equal (rows name their file)."""
    con = connect(path, read_only=True)
    try:
        tables = con.execute(
            "SELECT schema_name, table_name FROM duckdb_tables() WHERE NOT internal "
            "AND NOT temporary AND schema_name <> ? "
            "ORDER BY schema_name <> 'main', schema_name, table_name",
            [BOOKKEEPING_SCHEMA],
        ).fetchall()
        found = {}
        for schema, table in tables:
            columns = [
                f"replace({identifier(name)}, $root, '')"
                if root and kind == "VARCHAR"
                else identifier(name)
                for name, kind in con.execute(
                    "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = ? "
                    "AND schema_name = ? ORDER BY column_index",
                    [table, schema],
                ).fetchall()
                if name not in VOLATILE
            ]
            row = ", ".join(columns) or "1"
            qualified = f"{identifier(schema)}.{identifier(table)}"
            count, total = con.execute(
                f"SELECT count(*), coalesce(sum(hash({row})), 0) FROM {qualified}",
                {"root": root} if root and "$root" in row else None,
            ).fetchone()  # type: ignore[misc]
            # main's tables by their plain names (what users type), the others qualified
            found[table if schema == "main" else qualified] = (int(count), str(total))
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
    parser.add_argument(
        "--root", help="the inputs' folder, cut out of text columns (compare two folders)"
    )
    args = parser.parse_args(argv)
    now = table_checksums(args.warehouse, args.root)
    if args.against is None:
        for table, (count, total) in now.items():
            print(f"{table}\t{count}\t{total}")
        return 0
    before = _read(args.against)
    # A table that moved schema (written by name before, qualified now) is itself still.
    moved = {
        t: t.split(".", 1)[1]
        for t in now
        if "." in t and t not in before and t.split(".", 1)[1] in before
    }
    for table, old in moved.items():
        print(f"moved   {old} -> {table}")
        before[table] = before.pop(old)
    differ = 0
    for table in sorted(set(now) | set(before)):
        if now.get(table) != before.get(table):
            differ += 1
            print(f"DIFFERS {table}: before {before.get(table)}, now {now.get(table)}")
    print(f"{len(now)} tables, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
