"""The deterministic fleet simulator: every input in its real format, and the ground truth.

`simulate(...)` writes into one folder: billing extracts (NDJSON and Parquet), the jobs file
and a `sacct --json` document, NVML spool files, Cloud Monitoring pages, `truth/` and a
`flopledger.yaml` that points at them. Same arguments, same bytes. Usage days are generated
and written one at a time, so memory does not grow with the number of days.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from flopledger.budgets.demo import write_demo_budgets
from flopledger.probes.simulated import simulated_probe_rows, write_probe_jsonl
from flopledger.simulator.aws import build_aws, write_aws
from flopledger.simulator.billing import BILLING_DETAILS, day_rows
from flopledger.simulator.clock import DAY_US, day_start_us, to_naive
from flopledger.simulator.extracts import ExportWriter
from flopledger.simulator.fleet import EUR, USD, Fleet, build_fleet
from flopledger.simulator.gke import build_gke, write_pods
from flopledger.simulator.gke import config_lines as gke_config_lines
from flopledger.simulator.jobfiles import write_jobs_jsonl, write_sacct
from flopledger.simulator.managed import CONFIG_LINES as MANAGED_CONFIG
from flopledger.simulator.managed import write_managed
from flopledger.simulator.schedule import Run, build_schedule, check_density
from flopledger.simulator.telemetry import index_placements, write_gpu_day, write_tpu_day
from flopledger.simulator.truth import Truth

DEFAULT_START = date(2026, 10, 1)
OWNED = (
    "billing",
    "jobs",
    "spool",
    "monitoring",
    "truth",
    "flopledger.yaml",
    "warehouse.duckdb",
    "warehouse.snapshot.duckdb",
    "warehouse.snapshot-a.duckdb",  # the two files the snapshot takes turns linking to
    "warehouse.snapshot-b.duckdb",
    "budgets.yaml",
    "dagster_home",
    "input_cache",  # an earlier run's copies of remote inputs (ingest/inputs.py)
    "probes",
    "managed",
    "kubernetes",
    "aws-focus",
)


@dataclass
class SimulationResult:
    out_dir: Path
    config_path: Path
    runs: int
    billing_rows: int
    billing_files: int
    gpu_rows: int = 0
    tpu_points: int = 0
    totals: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    managed: dict[str, Any] = field(default_factory=dict)  # managed inference truth totals


def _clear(out: Path) -> None:
    """Remove what an earlier simulation wrote here (only the names it writes)."""
    for name in OWNED:
        path = out / name
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()


def config_text(
    fleet: Fleet, has_slurm: bool, telemetry: bool, args: str, gke: bool = False, aws: bool = False
) -> str:
    """`flopledger.yaml` naming only the sources this simulation wrote (paths relative to it)."""
    lines = [
        f"# Written by `flopledger simulate {args}`.",
        "warehouse:",
        "  kind: duckdb",
        "  path: warehouse.duckdb",
        "reporting_currency: USD",
        f"history_start: {to_naive(fleet.start_us).date().isoformat()}  # Dagster's first partition",
        "dagster_home: dagster_home  # run history for `flopledger run`, `flopledger ui`, the daemon",
        "budgets: budgets.yaml",
        "sources:",
        "  gcp_billing:",
        '    paths: ["billing/**/*.ndjson", "billing/**/*.parquet"]',
        "  jobs:",
        '    paths: ["jobs/*.jsonl"' + (', "jobs/*.json"' if has_slurm else "") + "]",
    ]
    if telemetry and fleet.vms:
        lines += ["  nvml_spool:", '    paths: ["spool/**/*.parquet"]']
    if telemetry and fleet.slices:
        lines += ["  cloud_monitoring:", '    paths: ["monitoring/**/*.json"]']
    if telemetry and (fleet.vms or fleet.slices):
        lines += ["  probes:", '    paths: ["probes/*.jsonl"]']
    lines += MANAGED_CONFIG
    if gke:
        lines += gke_config_lines()
    if aws:  # the AWS segment's FOCUS 1.2 export (simulator/aws.py)
        lines += ["  focus:", '    paths: ["aws-focus/**/*.parquet"]']
    return "\n".join(lines) + "\n"


def _telemetry_day(out: Path, fleet: Fleet, held: dict, day_us: int, seed: int) -> tuple[int, int]:
    gpu_rows = sum(
        write_gpu_day(out / "spool", vm, day_us, held.get(vm.name, []), seed) for vm in fleet.vms
    )
    points = sum(
        write_tpu_day(out / "monitoring", s, day_us, held.get(s.name, []), seed)
        for s in fleet.slices
    )
    return gpu_rows, points


def _write_budgets(out: Path, truth: Truth, start: date, days: int) -> None:
    """budgets.yaml scaled to what this fleet spends: some budgets cross a threshold."""
    daily = {
        team: Decimal(nanos) / Decimal(10**9) / days
        for team, nanos in truth.effective_by_team.items()
    }
    write_demo_budgets(out, daily_spend_by_team=daily, start=start, days=days)


def _write_probes(out: Path, fleet: Fleet, start: date, days: int, seed: int) -> None:
    """A daily bf16 probe sweep on every GPU VM and TPU node (one node's ceiling drops mid-way)."""
    nodes = [(vm.name, vm.machine.accelerator_type) for vm in fleet.vms]
    nodes += [(s.name, s.tpu.accelerator_type) for s in fleet.slices]
    # A file a day, named for the day as the probe CLI names its own (probes/cli.py): a day's
    # run reads that day's file, not the year's.
    day_list = [start + timedelta(days=i) for i in range(days)]
    by_day: dict[str, list[dict]] = {}
    for row in simulated_probe_rows(nodes, day_list, seed) if nodes else []:
        by_day.setdefault(row["measured_at"][:10], []).append(row)
    for day, rows in sorted(by_day.items()):
        write_probe_jsonl(out / "probes" / f"probe_results-{day}.jsonl", rows)


def simulate(
    out_dir: str | Path,
    *,
    gpus: int = 64,
    tpu_chips: int = 32,
    days: int = 7,
    seed: int = 1,
    start: date = DEFAULT_START,
    telemetry: bool = True,
    progress: Callable[[str], None] | None = None,
    gke: bool = False,
    aws_gpus: int = 0,
    job_density: float = 1.0,
    billing_detail: str = "standard",
) -> SimulationResult:
    """Simulate `days` UTC days of a fleet from `start` into `out_dir` (its earlier output replaced).

    `job_density` > 1: jobs and the idle gaps between them that many times shorter, so about that
    many times as many runs (simulator/schedule.py); `billing_detail` "full": the export's finer
    rows (simulator/billing.py). The defaults give the output every seeded fleet always had."""
    if days < 1 or gpus < 0 or tpu_chips < 0 or aws_gpus < 0:
        raise ValueError("days must be >= 1, gpus, tpu_chips and aws_gpus >= 0")
    check_density(job_density)
    if billing_detail not in BILLING_DETAILS:
        raise ValueError(f"billing detail must be one of: {', '.join(BILLING_DETAILS)}")
    t0 = time.monotonic()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    _clear(out)
    start_us = day_start_us(start)
    fleet = build_fleet(gpus, tpu_chips, start_us, start_us + days * DAY_US, seed)
    runs = build_schedule(fleet, seed, job_density)
    segment = build_gke(fleet, seed) if gke else None  # GKE nodes join fleet.vms
    if segment is not None:
        runs = runs + segment.runs
    aws = build_aws(aws_gpus, start_us, start_us + days * DAY_US, seed) if aws_gpus else None
    truth = Truth(runs + (aws.runs if aws else []))
    writer = ExportWriter(out / "billing", truth, [USD.account_id, EUR.account_id])
    gpu_rows, points = _days(
        out, fleet, runs, writer, seed, start, days, telemetry, progress, billing_detail
    )
    writer.flush()
    has_slurm = _write_jobs(out, runs + (aws.runs if aws else []), start, days)
    if aws is not None:
        focus_rows = write_aws(out / "aws-focus", aws, truth)
        if progress:
            progress(f"aws: {len(aws.instances)} instances, {focus_rows:,} FOCUS rows")
    if segment is not None:
        write_pods(out / "kubernetes" / "pods.json", segment, fleet)
    totals = truth.write(out / "truth")
    managed = write_managed(out / "managed", out / "truth", runs, start, days, seed)
    _write_budgets(out, truth, start, days)
    if telemetry:
        _write_probes(out, fleet, start, days, seed)
    args = f"--gpus {gpus} --tpu-chips {tpu_chips} --days {days} --seed {seed} --start {start}"
    args += ("" if telemetry else " --no-telemetry") + (" --gke" if gke else "")
    args += f" --aws-gpus {aws_gpus}" if aws_gpus else ""
    args += f" --job-density {job_density:g}" if job_density != 1.0 else ""
    args += f" --billing-detail {billing_detail}" if billing_detail != "standard" else ""
    config = out / "flopledger.yaml"
    config.write_text(config_text(fleet, has_slurm, telemetry, args, gke, aws is not None))
    return SimulationResult(
        out,
        config,
        len(truth.runs),
        writer.rows_written,
        len(writer.files),
        gpu_rows,
        points,
        totals,
        time.monotonic() - t0,
        managed,
    )


def _days(
    out: Path,
    fleet: Fleet,
    runs: list[Run],
    writer: ExportWriter,
    seed: int,
    start: date,
    days: int,
    telemetry: bool,
    progress: Callable[[str], None] | None,
    detail: str = "standard",
) -> tuple[int, int]:
    held = index_placements(runs, fleet.end_us) if telemetry else {}
    gpu_rows = points = 0
    for d in range(days):
        day = start + timedelta(days=d)
        rows = day_rows(fleet, runs, d, seed, detail)
        writer.add(rows)
        writer.flush(through=day)
        if telemetry:
            g, p = _telemetry_day(out, fleet, held, fleet.start_us + d * DAY_US, seed)
            gpu_rows, points = gpu_rows + g, points + p
        if progress:
            progress(
                f"day {d + 1}/{days} {day}: {len(rows):,} billing rows"
                + (f", {gpu_rows:,} GPU rows and {points:,} TPU points so far" if telemetry else "")
            )
    return gpu_rows, points


def _write_jobs(out: Path, runs: list[Run], start: date, days: int) -> bool:
    write_jobs_jsonl(out / "jobs", runs)
    end = start + timedelta(days=days)
    return (
        write_sacct(out / "jobs" / "sacct.json", runs, f"{start}T00:00:00", f"{end}T00:00:00")
        is not None
    )


__all__ = ["DEFAULT_START", "SimulationResult", "simulate"]
