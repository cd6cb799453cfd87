"""Start bqemulator (a local BigQuery) from its own environment, `.tools/bqemulator/`.

    .tools/bqemulator/bin/python scripts/run_bqemulator.py [--partition-by-export-day] start ...

`make setup` builds that environment (the emulator pins duckdb 1.5.x; flopledger uses 2.x).
Before starting, this installs DuckDB's spatial extension from the `duckdb-extension-spatial`
package (the emulator would download it, and this machine may have no network).

`--partition-by-export-day` is for the tests: the emulator has no ingestion-time partitions
(it reads `_PARTITIONTIME` as now), so the tests have it read `_PARTITIONTIME` as the day of
the row's `export_time`, which is when Google's export writes a row. Only the emulator
changes; flopledger sends the same SQL to it as to BigQuery.
"""

from __future__ import annotations

import sys
from pathlib import Path

import duckdb
import duckdb_extension_spatial

PARTITION_FLAG = "--partition-by-export-day"
EXACT_FLAG = "--exact-bignumeric"


def install_spatial() -> None:
    package = Path(duckdb_extension_spatial.__file__).parent
    extension = next(package.glob("extensions/*/spatial.duckdb_extension"))
    duckdb.execute(f"INSTALL '{extension}'")


def partition_by_export_day() -> None:
    from bqemulator.sql.rewriter import partition_pseudo_columns

    partition_pseudo_columns._REPLACEMENTS["_PARTITIONTIME"] = "TIMESTAMP_TRUNC(export_time, DAY)"
    partition_pseudo_columns._REPLACEMENTS["_PARTITIONDATE"] = "DATE(export_time)"


def exact_bignumeric() -> None:
    """Two of the emulator's numeric gaps, closed so it computes what BigQuery computes:

    - a BIGNUMERIC column made through the API is DECIMAL(76, 38), which its DuckDB refuses
      (width 1 to 38): here DECIMAL(38, 18), the widest scale a raw table declares
      (currency_conversion_rate);
    - DIV(x, y) becomes DuckDB's `x // y`, which on DECIMAL operands divides exactly (DIV(-7,
      2) is -3.5): here the operands are HUGEINT, so it truncates toward zero as BigQuery's
      DIV does, exactly (the models' nano-unit shares are integers up to 38 digits)."""
    from bqemulator.storage import type_map
    from sqlglot import exp
    from sqlglot.generators.duckdb import DuckDBGenerator

    type_map._BQ_TO_DUCKDB["BIGNUMERIC"] = "DECIMAL(38, 18)"

    def int_div(self, e):  # noqa: ANN001, ANN202 - a SQLGlot generator transform
        left = exp.cast(e.this.copy(), "HUGEINT")
        right = exp.cast(e.expression.copy(), "HUGEINT")
        return (
            f"CAST({self.binary(exp.IntDiv(this=left, expression=right), '//')} AS DECIMAL(38, 0))"
        )

    DuckDBGenerator.TRANSFORMS = {**DuckDBGenerator.TRANSFORMS, exp.IntDiv: int_div}


def main() -> None:
    install_spatial()
    if PARTITION_FLAG in sys.argv:
        sys.argv.remove(PARTITION_FLAG)
        partition_by_export_day()
    if EXACT_FLAG in sys.argv:
        sys.argv.remove(EXACT_FLAG)
        exact_bignumeric()
    from bqemulator.cli import main as emulator_main

    emulator_main()


if __name__ == "__main__":
    main()
