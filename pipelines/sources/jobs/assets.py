"""Run records into `jobs` and `job_placements`, one partition per UTC submission day."""

import dagster as dg
import pyarrow as pa
import pyarrow.compute as pc

from flopledger.collectors.jobs.read import read_jobs_files
from flopledger.collectors.kubernetes.read import (
    SKIPPED_NO_ACCELERATOR,
    PodsRead,
    merge_runs,
    read_pod_files,
)
from flopledger.pipelines.inputs import source_inputs
from flopledger.pipelines.loading import counts_metadata, replace_days, run_limits, store_quarantine
from flopledger.pipelines.partitions import window_days
from flopledger.pipelines.resources import Flopledger
from flopledger.pipelines.run_tags import run_now
from flopledger.settings import Config


def _pods(config: Config, run_key: str) -> PodsRead:
    """The pods of sources.kubernetes as runs (no files when the source is not configured)."""
    source = config.sources.kubernetes
    return read_pod_files(
        source_inputs(config, "kubernetes", run_key).paths,  # local or gs://
        source.labels if source else None,
        source.project_id if source else None,
    )


def build_assets(partitions: dg.PartitionsDefinition) -> list[dg.AssetsDefinition]:
    @dg.multi_asset(
        name="jobs_ingest",
        group_name="raw",
        partitions_def=partitions,
        backfill_policy=dg.BackfillPolicy.single_run(),
        specs=[
            dg.AssetSpec("jobs", kinds={"duckdb"}, description="One row per run."),
            dg.AssetSpec("job_placements", kinds={"duckdb"}, description="Who held what, when."),
        ],
    )
    def jobs_ingest(context: dg.AssetExecutionContext, flopledger: Flopledger):
        config, warehouse = flopledger.config(), flopledger.warehouse()
        inputs = source_inputs(config, "jobs", context.run_id)  # local or gs://, read whole
        read = read_jobs_files(inputs.paths, run_limits(config, run_now(context, flopledger)))
        pods = _pods(config, context.run_id)  # sources.kubernetes: pods as runs
        runs, held, quarantined = merge_runs(read, pods)
        jobs = replace_days(warehouse, "jobs", "submitted_day", runs, window_days(context))
        # Placements follow their runs: the same days, replaced together (even to none).
        present = sorted(set(jobs["submitted_day"].to_pylist()))
        placements = held.filter(
            pc.is_in(held["submitted_day"], value_set=pa.array(present, pa.date32()))
        )
        if present:
            warehouse.replace_days("job_placements", "submitted_day", present, placements)
        store_quarantine(warehouse, quarantined)
        counts = counts_metadata(
            # records found (pod records included); a run_id's earlier records, a pod's older
            # records and a multi-pod run's other pods are duplicates; CPU-only pods are skipped
            rows_read=read.rows_read + pods.rows_read,
            rows_loaded=jobs.num_rows,
            rows_duplicate=read.duplicates + pods.duplicates,
            rows_quarantined=len(quarantined),
            rows_skipped=pods.pods_skipped,
            rows_outside_window=runs.num_rows - jobs.num_rows,
        ) | inputs.metadata(context)
        if pods.pods_skipped:
            counts["skipped_because"] = dg.MetadataValue.text(SKIPPED_NO_ACCELERATOR)
        seen = f", {pods.pods} pods ({pods.pods_skipped} CPU-only)" if pods.pods else ""
        context.log.info(f"jobs: {jobs.num_rows} runs, {placements.num_rows} placements{seen}")
        yield dg.MaterializeResult(asset_key="jobs", metadata=counts)
        yield dg.MaterializeResult(
            asset_key="job_placements",
            metadata=counts_metadata(rows_loaded=placements.num_rows),
        )

    return [jobs_ingest]
