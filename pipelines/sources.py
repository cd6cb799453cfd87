"""Every source's raw asset(s), made from its `Source` (ingest/registry.py): an asset named after
its table, or a multi-asset `<source>_ingest` when it writes several; daily partitions, a range
materialised as one run. Thin: the run's context becomes an `IngestRun`, the source reads and
loads, its counts become Dagster metadata and its lines the step's log."""

import dagster as dg

from flopledger.ingest.registry import SOURCES
from flopledger.ingest.run import IngestRun
from flopledger.ingest.source import Loaded, Metadata, Source
from flopledger.pipelines.partitions import daily_raw_asset, window_days
from flopledger.pipelines.resources import Flopledger
from flopledger.pipelines.run_tags import run_now, window_only


def build(partitions: dg.PartitionsDefinition) -> dg.Definitions:
    """Every source's assets (the checks on their tables are declared in their DDL's header:
    pipelines/checks.py)."""
    return dg.Definitions(assets=[_assets(source, partitions) for source in SOURCES])


def ingest_run(context: dg.AssetExecutionContext, flopledger: Flopledger) -> IngestRun:
    """The step's run as a source sees it: its id, clock (a schedule's tick, else the wall
    clock), partition window, and log."""
    return IngestRun(
        config=flopledger.config(),
        warehouse=flopledger.warehouse(),
        now=run_now(context, flopledger),
        run_key=context.run_id,
        days=window_days(context),
        window_only=window_only(context),
        info=context.log.info,
        warning=context.log.warning,
    )


def metadata(counts: Metadata) -> dict[str, dg.MetadataValue]:
    """Counts as ints, notes as text, maps as JSON."""
    values: dict[str, dg.MetadataValue] = {}
    for name, value in counts.items():
        if isinstance(value, int):
            values[name] = dg.MetadataValue.int(value)
        elif isinstance(value, dict):
            values[name] = dg.MetadataValue.json(value)
        else:
            values[name] = dg.MetadataValue.text(value)
    return values


def _assets(source: Source, partitions: dg.PartitionsDefinition) -> dg.AssetsDefinition:
    if len(source.tables) == 1:
        return _single(source, partitions)
    return _multi(source, partitions)


def _single(source: Source, partitions: dg.PartitionsDefinition) -> dg.AssetsDefinition:
    (table,) = source.tables

    @daily_raw_asset(table.name, partitions, table.description)
    def load(context: dg.AssetExecutionContext, flopledger: Flopledger) -> dg.MaterializeResult:
        loaded = source.load(ingest_run(context, flopledger))
        return dg.MaterializeResult(metadata=metadata(loaded[table.name]))

    return load


def _multi(source: Source, partitions: dg.PartitionsDefinition) -> dg.AssetsDefinition:
    @dg.multi_asset(
        name=f"{source.name}_ingest",
        group_name="raw",
        partitions_def=partitions,
        backfill_policy=dg.BackfillPolicy.single_run(),
        specs=[
            dg.AssetSpec(t.name, kinds={"duckdb"}, description=t.description) for t in source.tables
        ],
    )
    def load(context: dg.AssetExecutionContext, flopledger: Flopledger):  # yields each table's
        loaded: Loaded = source.load(ingest_run(context, flopledger))
        for table in source.tables:  # in the order of the specs
            yield dg.MaterializeResult(asset_key=table.name, metadata=metadata(loaded[table.name]))

    return load
