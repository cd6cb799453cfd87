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

import re
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
    """Three of the emulator's numeric gaps, closed so it computes what BigQuery computes:

    - a BIGNUMERIC column made through the API is DECIMAL(76, 38), which its DuckDB refuses
      (width 1 to 38): here DECIMAL(precision, scale) as the field declares them (38 digits
      at most; flopledger declares BIGNUMERIC(38, 18) and (38, 0)), else DECIMAL(38, 18);
    - CAST(x AS NUMERIC(38, 9)) lost its parameters when the emulator re-wrote the query
      (DuckDB's default DECIMAL(18, 3)): here they are kept;
    - DIV(x, y) becomes DuckDB's `x // y`, which on DECIMAL operands divides exactly (DIV(-7,
      2) is -3.5): here the operands are HUGEINT, so it truncates toward zero as BigQuery's
      DIV does, exactly (the models' nano-unit shares are integers up to 38 digits)."""
    from bqemulator.storage import type_map
    from sqlglot import exp
    from sqlglot.generators.bigquery import BigQueryGenerator
    from sqlglot.generators.duckdb import DuckDBGenerator

    type_map._BQ_TO_DUCKDB["BIGNUMERIC"] = "DECIMAL(38, 18)"
    columns, to_duckdb = type_map.bq_schema_to_duckdb_columns, type_map.bq_to_duckdb

    def declared(fields):  # noqa: ANN001, ANN202 - REST schema fields (dicts)
        out = []
        for f in fields:
            if str(f.get("type", "")).upper() == "BIGNUMERIC" and f.get("precision"):
                f = {**f, "type": f"BIGNUMERIC({int(f['precision'])}, {int(f.get('scale') or 0)})"}
            out.append(f)
        return columns(out)

    def bq_to_duckdb(kind: str) -> str:
        match = re.fullmatch(r"BIGNUMERIC\((\d+),\s*(\d+)\)", kind.strip(), re.I)
        return f"DECIMAL({match[1]}, {match[2]})" if match else to_duckdb(kind)

    type_map.bq_schema_to_duckdb_columns, type_map.bq_to_duckdb = declared, bq_to_duckdb

    def int_div(self, e):  # noqa: ANN001, ANN202 - a SQLGlot generator transform
        left = exp.cast(e.this.copy(), "HUGEINT")
        right = exp.cast(e.expression.copy(), "HUGEINT")
        return (
            f"CAST({self.binary(exp.IntDiv(this=left, expression=right), '//')} AS DECIMAL(38, 0))"
        )

    DuckDBGenerator.TRANSFORMS = {**DuckDBGenerator.TRANSFORMS, exp.IntDiv: int_div}
    # The emulator re-serialises a query as BigQuery SQL before translating it (to qualify
    # its tables), and SQLGlot's BigQuery generator drops CAST's type parameters on the way:
    # CAST(x AS NUMERIC(38, 9)) became DuckDB's DECIMAL(18, 3), losing money's digits.
    BigQueryGenerator.TRANSFORMS = {
        **BigQueryGenerator.TRANSFORMS,
        exp.Cast: lambda self, e: self.cast_sql(e),
    }


def ddl_partitions() -> None:
    """`CREATE TABLE ... PARTITION BY DATE(ts) | TIMESTAMP_TRUNC(ts, DAY) | DATE_TRUNC(d, MONTH)
    CLUSTER BY a, b AS ...` is recorded as BigQuery records it (time partitioning on the column,
    by the unit; clustering fields): the emulator ran the statement but recorded only a plain
    `PARTITION BY column`, and no clustering. It stores no partitions either way (one DuckDB
    table); only the table's metadata changes, so a test can read it back. A JSON column so
    made (a mart's labels) is recorded as JSON, not STRING (the emulator read the column's type
    from DuckDB's Arrow export, which writes JSON as text)."""
    import sqlglot
    from bqemulator.catalog import ddl_sync, models
    from bqemulator.jobs import executor
    from bqemulator.scripting import interpreter
    from sqlglot import exp

    original = ddl_sync.sync_created_table

    def layout(tree: exp.Create) -> tuple[tuple[str, str] | None, tuple[str, ...]]:
        partition, cluster = None, ()
        for prop in (tree.args.get("properties") or exp.Properties()).expressions:
            if isinstance(prop, exp.PartitionedByProperty):
                inner = prop.this
                if isinstance(inner, exp.Identifier | exp.Column):
                    partition = (inner.name, "DAY")
                elif isinstance(inner, exp.Func) and isinstance(inner.this, exp.Column):
                    unit = inner.args.get("unit")
                    partition = (inner.this.name, unit.name.upper() if unit else "DAY")
            elif isinstance(prop, exp.Cluster | exp.ClusterProperty):
                cluster = tuple(e.name for e in prop.expressions)
        return partition, cluster

    def sync_created_table(bq_sql: str, project_id: str, ctx) -> None:  # noqa: ANN001
        original(bq_sql, project_id, ctx)
        target = ddl_sync._detect_plain_create_table(bq_sql)
        if target is None:
            return
        p_id, d_id, t_id = ddl_sync._split_target(target, project_id)
        meta = ctx.catalog.get_table(p_id, d_id, t_id) if d_id and t_id else None
        if meta is None:
            return
        partition, cluster = layout(sqlglot.parse_one(bq_sql, read="bigquery"))
        update: dict[str, object] = {}
        ref = ddl_sync.quoted_table_ref(p_id, d_id, t_id)
        json = {name for name, kind in _kinds(ctx, ref) if kind == "JSON"}
        if json:
            fields = tuple(
                f.model_copy(update={"type": "JSON"}) if f.name in json else f
                for f in meta.schema_.fields
            )
            update["schema_"] = meta.schema_.model_copy(update={"fields": fields})
        if partition is not None:
            update["time_partitioning"] = models.TimePartitioning(
                type=partition[1], field=partition[0]
            )
        if cluster:
            update["clustering"] = models.Clustering(fields=cluster)
        if update:
            ctx.catalog.update_table(meta.model_copy(update=update))

    def _kinds(ctx, ref: str) -> list[tuple[str, str]]:  # noqa: ANN001
        return [
            (r[1], str(r[2]).upper())
            for r in ctx.engine.execute(f"PRAGMA table_info({ref})").fetchall()
        ]

    executor.sync_created_table = interpreter.sync_created_table = sync_created_table


def main() -> None:
    install_spatial()
    if PARTITION_FLAG in sys.argv:
        sys.argv.remove(PARTITION_FLAG)
        partition_by_export_day()
    if EXACT_FLAG in sys.argv:
        sys.argv.remove(EXACT_FLAG)
        exact_bignumeric()
        ddl_partitions()
    from bqemulator.cli import main as emulator_main

    emulator_main()


if __name__ == "__main__":
    main()
