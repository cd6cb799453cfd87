"""Run records into `jobs` and `job_placements`, by UTC submission day: the jobs file and Slurm
`sacct --json` (sources.jobs) and the Kubernetes pods' runs (sources.kubernetes), merged."""

from datetime import date

import pyarrow as pa
import pyarrow.compute as pc

from flopledger.collectors.jobs.read import read_jobs_files
from flopledger.collectors.kubernetes.read import (
    SKIPPED_NO_ACCELERATOR,
    PodsRead,
    merge_runs,
    read_pod_files,
)
from flopledger.ingest.inputs import source_inputs
from flopledger.ingest.loading import replace_days, store_quarantine
from flopledger.ingest.run import IngestRun
from flopledger.ingest.source import Loaded, Metadata, Source, Table

KUBERNETES = "kubernetes"


def _pods(run: IngestRun) -> PodsRead:
    """The pods of sources.kubernetes as runs (no files when the source is not configured)."""
    source = run.config.sources.kubernetes
    return read_pod_files(
        source_inputs(run.config, KUBERNETES, run.run_key).paths,  # local or gs://
        source.labels if source else None,
        source.project_id if source else None,
        run.limits,
    )


class Jobs(Source):
    name = "jobs"
    tables = (Table("jobs", "One row per run."), Table("job_placements", "Who held what, when."))
    # A jobs file carries every state of a run, whatever day it was submitted: read whole.
    day_slack = None

    def config_keys(self) -> tuple[str, ...]:
        return (self.name, KUBERNETES)

    def find_days(self, run: IngestRun) -> set[date]:
        """The submission days of the jobs files' runs and of the pods' runs."""
        days: set[date] = set()
        if run.config.sources.jobs is not None:
            jobs = read_jobs_files(self.inputs(run).paths, run.limits).jobs
            days |= {d for d in jobs["submitted_day"].to_pylist() if d is not None}
        source = run.config.sources.kubernetes
        if source is not None:
            paths = source_inputs(run.config, KUBERNETES, run.run_key).paths
            pods = read_pod_files(paths, source.labels, limits=run.limits).jobs
            days |= {d for d in pods["submitted_day"].to_pylist() if d is not None}
        return days

    def load(self, run: IngestRun) -> Loaded:
        warehouse = run.warehouse
        inputs = self.inputs(run)  # local or gs://, read whole
        read = read_jobs_files(inputs.paths, run.limits)
        pods = _pods(run)  # sources.kubernetes: pods as runs
        runs, held, quarantined = merge_runs(read, pods)
        jobs = replace_days(warehouse, "jobs", "submitted_day", runs, run.days)
        # Placements follow their runs: the same days, replaced together (even to none).
        present = sorted(set(jobs["submitted_day"].to_pylist()))
        placements = held.filter(
            pc.is_in(held["submitted_day"], value_set=pa.array(present, pa.date32()))
        )
        if present:
            warehouse.replace_days("job_placements", "submitted_day", present, placements)
        store_quarantine(warehouse, quarantined)
        counts: Metadata = {
            # records found (pod records included); a run_id's earlier records, a pod's older
            # records and a multi-pod run's other pods are duplicates; CPU-only pods are skipped
            "rows_read": read.rows_read + pods.rows_read,
            "rows_loaded": jobs.num_rows,
            "rows_duplicate": read.duplicates + pods.duplicates,
            "rows_quarantined": len(quarantined),
            "rows_skipped": pods.pods_skipped,
            "rows_outside_window": runs.num_rows - jobs.num_rows,
            **inputs.metadata(run),
        }
        if pods.pods_skipped:
            counts["skipped_because"] = SKIPPED_NO_ACCELERATOR
        seen = f", {pods.pods} pods ({pods.pods_skipped} CPU-only)" if pods.pods else ""
        run.info(f"jobs: {jobs.num_rows} runs, {placements.num_rows} placements{seen}")
        return {"jobs": counts, "job_placements": {"rows_loaded": placements.num_rows}}
