"""Runs and their placements: who held which accelerators of which resource, when.

Each scheduling cell (one VM, a group of VMs for multi-host runs, or one TPU slice) gets a
timeline: idle gap, run, idle gap, run... A failed run is retried (attempt 2, same job_id,
new run_id). A single VM sometimes hosts two 4-GPU runs at once. A run still going at the
end of the period is `running` with no end. Times are integer microseconds.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from flopledger.accelerators import find_accelerator, peak_tflops
from flopledger.simulator.clock import HOUR_US, MINUTE_US, US
from flopledger.simulator.fleet import Fleet, TpuSlice, Vm


class Workload(NamedTuple):
    name: str
    min_h: float
    max_h: float
    training: bool


WORKLOADS = {
    w.name: w
    for w in (
        Workload("pretraining", 6, 60, True),
        Workload("post_training", 2, 14, True),
        Workload("rl_eval", 0.5, 3, False),
        Workload("online_inference", 4, 20, False),
        Workload("batch_inference", 1, 8, False),
        Workload("other", 0.25, 2, False),
    )
}
SINGLE_MIX = (
    "post_training",
    "rl_eval",
    "online_inference",
    "batch_inference",
    "other",
    "pretraining",
)
SINGLE_WEIGHTS = (3, 3, 2, 3, 2, 1)
MULTI_MIX = ("pretraining", "post_training")
MODELS = (
    ("llama-8b", 8_030_000_000),
    ("llama-70b", 70_600_000_000),
    ("mixtral-8x7b", 46_700_000_000),
    ("gemma-27b", 27_200_000_000),
    ("acme-moe-400b", 400_000_000_000),
)
# Model FLOPs utilisation each workload reaches (a range): tokens follow from it, so that the
# runs' MFU against spec comes out realistic (model FLOPs: 6 x params x tokens for training,
# 2 x params x tokens for inference, as the run_mfu mart counts them).
MFU_RANGE = {
    "pretraining": (0.35, 0.5),
    "post_training": (0.25, 0.4),
    "rl_eval": (0.08, 0.18),
    "online_inference": (0.04, 0.12),
    "batch_inference": (0.2, 0.35),
    "other": (0.0, 0.0),
}


@dataclass
class Placement:
    resource_name: str
    project_id: str
    accelerators: int
    start_us: int
    end_us: int | None  # None: still running at the end of the period
    first_device: int = 0  # the first GPU index / chip it holds (telemetry)
    share_numerator: int = 1  # share of each accelerator held: a MIG 1g.10gb slice is 1/7
    share_denominator: int = 1


@dataclass
class Run:
    run_id: str
    job_id: str
    attempt: int
    team: str
    project_id: str
    workload_class: str
    experiment_id: str
    model_name: str
    model_params: int
    submitted_us: int
    started_us: int
    ended_us: int | None
    status: str
    accelerator_type: str
    accelerator_count: int
    tokens_in: int | None
    tokens_out: int | None
    scheduler: str  # "jobs_file" or "slurm"
    placements: list[Placement] = field(default_factory=list)
    idle_us: list[tuple[int, int]] = field(default_factory=list)  # held but idle stretches
    slurm_job_id: int | None = None


@dataclass
class Cell:
    """Accelerators that one timeline of runs occupies: VMs (all of them per run) or one slice."""

    key: str
    resources: Sequence[Vm | TpuSlice]
    start_us: int
    end_us: int
    slurm: bool
    shareable: bool  # one VM: may host two 4-GPU runs at once
    density: float = 1.0  # jobs and the gaps between them this many times shorter (more runs)


def _cells(fleet: Fleet) -> list[Cell]:
    cells: list[Cell] = []
    steady = [
        v for v in fleet.vms if v.created_us == fleet.start_us and v.deleted_us == fleet.end_us
    ]
    groups: dict[
        tuple[str, str, bool], list[Vm]
    ] = {}  # multi-host runs stay in one machine type and account
    for vm in steady:
        groups.setdefault((vm.machine.name, vm.project.account.currency, vm.slurm), []).append(vm)
    for vms in groups.values():
        pairs = (
            2 * max(1, len(vms) // 4) if len(vms) >= 2 else 0
        )  # VMs that run multi-host, in pairs
        for i in range(0, pairs, 2):
            cells.append(
                Cell(vms[i].name, vms[i : i + 2], fleet.start_us, fleet.end_us, vms[i].slurm, False)
            )
        for vm in vms[pairs:]:
            cells.append(Cell(vm.name, [vm], fleet.start_us, fleet.end_us, vm.slurm, True))
    for vm in fleet.vms:
        if vm not in steady:
            cells.append(Cell(vm.name, [vm], vm.created_us, vm.deleted_us, vm.slurm, False))
    for tpu in fleet.slices:
        cells.append(Cell(tpu.name, [tpu], tpu.created_us, tpu.deleted_us, False, False))
    return sorted(cells, key=lambda c: c.key)


class _Ids:
    """Run, job and Slurm job ids, numbered in generation order (deterministic)."""

    def __init__(self) -> None:
        self.runs = 0
        self.slurm = 41_000

    def run_id(self) -> str:
        self.runs += 1
        return f"run-{self.runs:06d}"

    def slurm_id(self) -> int:
        self.slurm += 1
        return self.slurm


def _devices(resource: Vm | TpuSlice) -> int:
    return resource.tpu.chips_per_slice if isinstance(resource, TpuSlice) else resource.machine.gpus


def _accel_type(resource: Vm | TpuSlice) -> str:
    return (
        resource.tpu.accelerator_type
        if isinstance(resource, TpuSlice)
        else resource.machine.accelerator_type
    )


def _duration_us(
    rng: random.Random, workload: Workload, whole_seconds: bool, density: float = 1.0
) -> int:
    hours = workload.min_h * (workload.max_h / workload.min_h) ** rng.random()
    if density != 1.0:
        hours /= density
    us = int(hours * HOUR_US) + rng.randrange(US)
    return us - us % US if whole_seconds else us


def _tokens(
    rng: random.Random, workload: str, accel_s: float, accelerator_type: str, params: int
) -> tuple[int | None, int | None]:
    """Tokens a run would process at a realistic MFU on its accelerators' bf16 spec peak."""
    peak_flops = (peak_tflops(accelerator_type, "bf16") or 0.0) * 1e12
    flops_per_token = (6 if WORKLOADS[workload].training else 2) * params
    total = int(accel_s * peak_flops * rng.uniform(*MFU_RANGE[workload]) / flops_per_token)
    if WORKLOADS[workload].training:
        return total, None
    if workload in ("online_inference", "batch_inference", "rl_eval"):
        out_share = rng.uniform(0.1, 0.4)
        return total - int(total * out_share), int(total * out_share)
    return None, None


def _idle_stretches(
    rng: random.Random, workload: str, start: int, end: int
) -> list[tuple[int, int]]:
    """Some runs hold accelerators and leave them idle for a while (allocated idle)."""
    share = 0.35 if workload == "rl_eval" else 0.1
    if rng.random() > share or end - start < 30 * MINUTE_US:
        return []
    a = start + int((end - start) * rng.uniform(0.1, 0.5))
    return [(a, a + int((end - start) * rng.uniform(0.1, 0.35)))]


SLURM_CLUSTER = "acme-a3u"


@dataclass
class _Job:
    """What attempts of one job share."""

    job_id: str
    workload: str
    model: tuple[str, int]
    experiment_id: str
    devices_each: int
    first_device: int


def _status(rng: random.Random) -> tuple[str, float]:
    """Final status and the share of the planned duration the attempt lasted."""
    roll = rng.random()
    if roll < 0.10:
        return "failed", rng.uniform(0.05, 0.8)
    if roll < 0.14:
        return "cancelled", rng.uniform(0.1, 0.9)
    return "succeeded", 1.0


def _end(
    rng: random.Random, cell: Cell, start: int, end: int, period_end: int
) -> tuple[int | None, bool]:
    """The attempt's end (None: still running), and whether the resource's end cut it short."""
    if end < cell.end_us:
        return end, False
    if cell.end_us >= period_end:
        return None, True
    cut = cell.end_us - rng.randrange(1, 600) * US
    return max(cut, start + US), True


def _queue_us(rng: random.Random, start: int, floor_us: int, whole: bool) -> int:
    queued = int(rng.expovariate(1 / (20 * 60)) * US) + 5 * US
    submitted = max(floor_us, start - queued)
    return submitted - submitted % US if whole else submitted


def _attempt(
    rng: random.Random,
    ids: _Ids,
    cell: Cell,
    job: _Job,
    attempt: int,
    start: int,
    period: tuple[int, int],
) -> Run:
    whole = cell.slurm
    planned = _duration_us(rng, WORKLOADS[job.workload], whole, cell.density)
    status, share = _status(rng)
    end, cut = _end(rng, cell, start, start + max(int(planned * share), MINUTE_US), period[1])
    if cut:
        status = "running" if end is None else "cancelled"
    if whole and end is not None:
        end -= end % US
    resources = cell.resources
    count = job.devices_each * len(resources)
    held_s = ((end if end is not None else period[1]) - start) / US * count
    tokens_in, tokens_out = _tokens(
        rng,
        job.workload,
        held_s if status != "failed" else 0.0,
        _accel_type(cell.resources[0]),
        job.model[1],
    )
    slurm_id = ids.slurm_id() if cell.slurm else None
    first = resources[0]
    return Run(
        run_id=f"slurm-{SLURM_CLUSTER}-{slurm_id}" if slurm_id else ids.run_id(),
        job_id=f"slurm-{SLURM_CLUSTER}-{slurm_id}" if slurm_id else job.job_id,
        attempt=attempt,
        team=first.team or first.project.team,
        project_id=first.project.project_id,
        workload_class=job.workload,
        experiment_id=job.experiment_id,
        model_name=job.model[0],
        model_params=job.model[1],
        submitted_us=_queue_us(rng, start, period[0], whole),
        started_us=start,
        ended_us=end,
        status=status,
        accelerator_type=_accel_type(first),
        accelerator_count=count,
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        scheduler="slurm" if cell.slurm else "jobs_file",
        placements=[
            Placement(r.name, r.project.project_id, job.devices_each, start, end, job.first_device)
            for r in resources
        ],
        idle_us=_idle_stretches(rng, job.workload, start, end if end is not None else period[1]),
        slurm_job_id=slurm_id,
    )


def _job(
    rng: random.Random,
    ids: _Ids,
    cell: Cell,
    start: int,
    devices_each: int,
    first_device: int,
    period: tuple[int, int],
) -> list[Run]:
    """One job: its first attempt and, when that fails, a retry."""
    mix: tuple[str, ...]
    weights: tuple[int, ...]
    mix, weights = (MULTI_MIX, (2, 1)) if len(cell.resources) > 1 else (SINGLE_MIX, SINGLE_WEIGHTS)
    if isinstance(cell.resources[0], TpuSlice):
        mix, weights = (
            ("pretraining", "post_training", "batch_inference", "online_inference"),
            (3, 2, 2, 1),
        )
    workload = rng.choices(mix, weights)[0]
    team = cell.resources[0].project.team
    job = _Job(
        f"job-{ids.runs + 1:06d}",
        workload,
        rng.choice(MODELS),
        f"exp-{team}-{rng.randrange(1, 40):03d}",
        devices_each,
        first_device,
    )
    runs = [_attempt(rng, ids, cell, job, 1, start, period)]
    last = runs[-1]
    if last.status == "failed" and not cell.slurm and last.ended_us is not None:
        retry_at = last.ended_us + rng.randrange(2, 30) * MINUTE_US
        if retry_at < cell.end_us - 10 * MINUTE_US:
            runs.append(_attempt(rng, ids, cell, job, 2, retry_at, period))
    return runs


def _slot(
    rng: random.Random, ids: _Ids, cell: Cell, start: int, period: tuple[int, int]
) -> list[Run]:
    """One slot of the timeline: a whole-resource job, or two 4-GPU jobs sharing one VM."""
    devices = _devices(cell.resources[0])
    second = start + rng.randrange(0, 30) * MINUTE_US
    second -= second % US if cell.slurm else 0
    if cell.shareable and rng.random() < 0.25 and second < cell.end_us - 15 * MINUTE_US:
        return _job(rng, ids, cell, start, devices // 2, 0, period) + _job(
            rng, ids, cell, second, devices // 2, devices // 2, period
        )
    return _job(rng, ids, cell, start, devices, 0, period)


def _gap_us(rng: random.Random, whole: bool, density: float = 1.0) -> int:
    gap = (
        int(rng.expovariate(1 / (50 * 60)) * US)
        if rng.random() < 0.8
        else rng.randrange(2, 9) * HOUR_US
    )
    if density != 1.0:
        gap = int(gap / density)
    return gap - gap % US if whole else gap


def _timeline(rng: random.Random, ids: _Ids, cell: Cell, period: tuple[int, int]) -> list[Run]:
    runs: list[Run] = []
    t = cell.start_us + _gap_us(rng, cell.slurm, cell.density) + 5 * MINUTE_US
    while t < cell.end_us - 15 * MINUTE_US:
        slot = _slot(rng, ids, cell, t, period)
        runs += slot
        if any(r.ended_us is None for r in slot):
            break
        t = max(r.ended_us or 0 for r in slot) + _gap_us(rng, cell.slurm, cell.density)
    return runs


# Job density's range: at 50 a 1,024-GPU month has ~500,000 runs (far past any benchmark, short
# of exhausting memory); at 0.1 a job can run for 600 hours.
MIN_DENSITY, MAX_DENSITY = 0.1, 50.0


def check_density(density: float) -> None:
    """A clear error for a job density outside [MIN_DENSITY, MAX_DENSITY] (NaN included)."""
    if not MIN_DENSITY <= density <= MAX_DENSITY:
        raise ValueError(
            f"job density must be between {MIN_DENSITY:g} and {MAX_DENSITY:g}, got {density:g}"
        )


def build_schedule(fleet: Fleet, seed: int, density: float = 1.0) -> list[Run]:
    """Every run of the period, in run_id order. `density` > 1 makes every job and every idle
    gap between jobs that many times shorter: about `density` times as many runs, the share of
    idle time about the same (1: the schedule every seeded fleet has always had)."""
    check_density(density)
    ids = _Ids()
    period = (fleet.start_us, fleet.end_us)
    runs: list[Run] = []
    for cell in _cells(fleet):
        cell.density = density
        runs += _timeline(random.Random(f"runs:{seed}:{cell.key}"), ids, cell, period)
    return _on_tpu_and_gpu(runs)


def _worked(run: Run) -> bool:
    return (run.tokens_in or 0) + (run.tokens_out or 0) > 0


def _on_tpu_and_gpu(runs: list[Run]) -> list[Run]:
    """At least one model runs on a TPU and on a GPU (when the fleet has both), so the
    accelerator portfolio always has a side by side to show. When the draw left none, one TPU
    job takes the model of a GPU run: preferably both with tokens and of the same workload
    class, else both with tokens, else any. Its tokens scale by the parameter ratio, so its MFU
    stays what was drawn. Draws that already have one (the demo's) are left as they were."""
    tpu = [r for r in runs if _is_tpu(r)]
    gpu = [r for r in runs if not _is_tpu(r)]
    if not tpu or not gpu or _shared(tpu, gpu):
        return runs
    job, donor = _pair(tpu, gpu)
    return [
        _as_model(r, donor.model_name, donor.model_params) if r.job_id == job.job_id else r
        for r in runs
    ]


def _shared(tpu: list[Run], gpu: list[Run]) -> bool:
    """A model already on both: in one class with tokens on each side, or at all when one side
    has no run with tokens."""
    worked_tpu, worked_gpu = [r for r in tpu if _worked(r)], [r for r in gpu if _worked(r)]
    if worked_tpu and worked_gpu:
        on_tpu = {(r.model_name, r.workload_class) for r in worked_tpu}
        return bool(on_tpu & {(r.model_name, r.workload_class) for r in worked_gpu})
    return bool({r.model_name for r in tpu} & {r.model_name for r in gpu})


def _pair(tpu: list[Run], gpu: list[Run]) -> tuple[Run, Run]:
    """The TPU run whose job changes model, and the GPU run whose model it takes."""
    by_class: dict[str, Run] = {}
    for r in gpu:
        if _worked(r):
            by_class.setdefault(r.workload_class, r)
    same = next((r for r in tpu if _worked(r) and r.workload_class in by_class), None)
    if same is not None:
        return same, by_class[same.workload_class]
    worked_tpu = next((r for r in tpu if _worked(r)), None)
    worked_gpu = next((r for r in gpu if _worked(r)), None)
    if worked_tpu is not None and worked_gpu is not None:
        return worked_tpu, worked_gpu
    return tpu[0], gpu[0]


def _is_tpu(run: Run) -> bool:
    spec = find_accelerator(run.accelerator_type)
    return spec is not None and spec.kind == "tpu"


def _as_model(run: Run, name: str, params: int) -> Run:
    def scaled(tokens: int | None) -> int | None:
        return None if tokens is None else tokens * run.model_params // params

    return replace(
        run,
        model_name=name,
        model_params=params,
        tokens_in=scaled(run.tokens_in),
        tokens_out=scaled(run.tokens_out),
    )
