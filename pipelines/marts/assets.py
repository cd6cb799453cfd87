"""Every SQL file in models/intermediate/ and models/marts/ is one asset; its upstreams are the
tables its SQL reads (models/lineage.py).

A day-grained model (models/grain.py) is a daily-partitioned asset on the sources' partitions,
so the UI shows which days are built; every other model is one asset. Each builds what changed
since its last build (warehouse/incremental.py), whatever the run's partitions: a run after
ingest builds the days the ingest changed. A backfill (or a run tagged REBUILD_TAG) rebuilds
its partitions as well, and FULL_TAG rebuilds everything. Days rebuilt outside the run's own
partitions (a late billing row for an older day) are recorded as materialisations of theirs."""

from collections.abc import Iterator
from datetime import date, timedelta

import dagster as dg
import pyarrow as pa

from flopledger import models
from flopledger.ingest import settings_history
from flopledger.pipelines import checks
from flopledger.pipelines.marts.closed_months import closed_month_changes
from flopledger.pipelines.marts.commitment_plan import commitment_plan
from flopledger.pipelines.marts.snapshot import OTHER_MARTS, build_snapshot_asset
from flopledger.pipelines.resources import Flopledger
from flopledger.pipelines.run_tags import FULL_TAG, REBUILD_TAG, run_now
from flopledger.probes.specs import spec_rows
from flopledger.warehouse import incremental


def _partition_days(context: dg.AssetExecutionContext) -> list[date]:
    if not context.has_partition_key_range:
        return []
    keys = context.partition_key_range
    first, last = date.fromisoformat(keys.start), date.fromisoformat(keys.end)
    return [first + timedelta(days=n) for n in range((last - first).days + 1)]


def _forced(context: dg.AssetExecutionContext) -> bool:
    tags = context.run.tags
    return tags.get(REBUILD_TAG) == "true" or "dagster/backfill" in tags


def _mart_asset(
    mart: models.Model, known: set[str], partitions: dg.PartitionsDefinition
) -> dg.AssetsDefinition:
    unknown = sorted(set(mart.depends_on) - known)
    if unknown:  # a mistyped table, or one no asset writes: it would build before its inputs
        raise ValueError(f"models: {mart.name} reads {unknown}, which no asset writes")
    deps = sorted(mart.depends_on)
    daily = mart.grain is not None and mart.grain.kind == "day"

    @dg.asset(
        name=mart.name,
        group_name="intermediate" if mart.kind == "intermediate" else "marts",
        deps=deps,
        kinds={"duckdb", "sql"},
        description=mart.table_comment,
        partitions_def=partitions if daily else None,
        backfill_policy=dg.BackfillPolicy.single_run() if daily else None,
        check_specs=[checks.spec_of(mart.name, spec) for spec in mart.checks],
    )
    def build(context: dg.AssetExecutionContext, flopledger: Flopledger) -> dg.MaterializeResult:
        own = _partition_days(context)
        built = incremental.build(
            flopledger.warehouse(),
            mart.name,
            full=context.run.tags.get(FULL_TAG) == "true",
            days=own if _forced(context) else (),
        )
        if daily and built.scope.days:
            valid = set(partitions.get_partition_keys())
            for day in sorted(set(built.scope.days) - set(own)):
                if day.isoformat() in valid:  # a day rebuilt beyond the run's partitions
                    context.log_event(
                        dg.AssetMaterialization(asset_key=mart.name, partition=day.isoformat())
                    )
        context.log.info(f"{mart.name}: rebuilt {built.scope.describe()}, {built.rows} row(s)")
        return dg.MaterializeResult(
            metadata={
                "rows_written": dg.MetadataValue.int(built.rows),
                "rebuilt": dg.MetadataValue.text(built.scope.describe()),
            },
            # Its declared checks, on what it just built: a failed blocking one fails this
            # step, so nothing downstream runs on books in doubt.
            check_results=[checks.evaluate(mart.name, s, flopledger) for s in mart.checks],
        )

    return build


@dg.multi_asset(
    specs=[
        dg.AssetSpec(
            "flopledger_settings",
            group_name="marts",
            kinds={"duckdb"},
            description="The settings the marts are built with now, from flopledger.yaml.",
        ),
        dg.AssetSpec(
            settings_history.HISTORY,
            group_name="marts",
            kinds={"duckdb"},
            description="Which value of each setting is in force from which day: a config "
            "change from the open month on (ingest/settings_history.py).",
        ),
    ],
    name="flopledger_settings_asset",
)
def flopledger_settings(
    context: dg.AssetExecutionContext, flopledger: Flopledger
) -> Iterator[dg.MaterializeResult]:
    settings = settings_history.config_settings(flopledger.config())
    changes = settings_history.record(
        flopledger.warehouse(),
        settings,
        run_now(context, flopledger),
        flopledger.config().month_report.settle_days,
    )
    for change in changes:
        context.log.info(
            f"settings: {change.describe()} from {change.effective_from or 'the start'}"
        )
    yield dg.MaterializeResult(
        asset_key="flopledger_settings",
        metadata={k: dg.MetadataValue.text(v) for k, v in settings.items()},
    )
    yield dg.MaterializeResult(
        asset_key=settings_history.HISTORY,
        metadata={
            "settings_changed": dg.MetadataValue.text(
                "\n".join(f"{c.describe()} from {c.effective_from or 'the start'}" for c in changes)
            )
        },
    )


def spec_table() -> pa.Table:
    """The accelerator table's peaks (through probes.specs) as `accelerator_specs` rows."""
    rows = spec_rows()
    return pa.table(
        {
            "accelerator_type": [r["accelerator_type"] for r in rows],
            "dtype": [r["dtype"] for r in rows],
            "peak_tflops_spec": pa.array([r["peak_tflops"] for r in rows], pa.float64()),
            "source": [r["source"] for r in rows],
        }
    )


@dg.asset(
    name="accelerator_specs",
    group_name="marts",
    kinds={"duckdb"},
    description="Peak dense TFLOP/s per accelerator type and dtype, from the spec sheets (accelerators/table.py).",
)
def accelerator_specs(flopledger: Flopledger) -> dg.MaterializeResult:
    table = spec_table()
    flopledger.warehouse().replace_all("accelerator_specs", table)
    return dg.MaterializeResult(metadata={"rows": dg.MetadataValue.int(table.num_rows)})


def build_assets(
    raw_keys: set[str], partitions: dg.PartitionsDefinition
) -> list[dg.AssetsDefinition]:
    known = raw_keys | {m.name for m in models.marts()} | set(OTHER_MARTS)
    return [
        flopledger_settings,
        accelerator_specs,
        commitment_plan,
        closed_month_changes,
        *(_mart_asset(m, known, partitions) for m in models.marts()),
        build_snapshot_asset([m.name for m in models.marts()]),
    ]
