"""The simulated fleet: billing accounts, projects, GPU VMs, TPU slices and buckets (as data)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from decimal import Decimal
from typing import NamedTuple

from flopledger.accelerators import Accelerator, accelerator
from flopledger.simulator.clock import DAY_US, HOUR_US, US


class Account(NamedTuple):
    account_id: str
    currency: str
    rate: Decimal  # currency_conversion_rate: billing currency per USD


class Project(NamedTuple):
    project_id: str
    number: str
    account: Account
    team: str  # the team that owns most of the project's resources


class MachineType(NamedTuple):
    name: str  # machine_spec
    prefix: str  # VM name prefix
    gpu_sku: str
    core_sku: str
    ram_sku: str
    gpus: int
    vcpus: int
    ram_gib: int
    accelerator: Accelerator  # its GPUs' row of the accelerator table

    @property
    def accelerator_type(self) -> str:
        return self.accelerator.name


class TpuType(NamedTuple):
    version: str
    sku: str
    machine: str  # the TPU VM's machine_spec
    chips_per_worker: int
    chips_per_slice: int
    accelerator: Accelerator

    @property
    def accelerator_type(self) -> str:
        return self.accelerator.name


USD = Account("01A3F5-7C2B9D-4E8F10", "USD", Decimal(1))
EUR = Account("01E7B2-3D4C5A-6F7081", "EUR", Decimal("0.921734"))

PROJECTS = (
    Project("acme-llm-prod", "481516234201", USD, "llm"),
    Project("acme-research", "481516234202", USD, "research"),
    Project("acme-inference", "481516234203", USD, "inference"),
    Project("acme-eu-prod", "481516234204", EUR, "eu-llm"),
)
ZONE = "us-central1-a"
EU_ZONE = "europe-west4-b"

A3 = MachineType(
    "a3-highgpu-8g", "a3", "h100", "a3_core", "a3_ram", 8, 208, 1872, accelerator("H100-80GB")
)
A3U = MachineType(
    "a3-ultragpu-8g", "a3u", "h200", "a3u_core", "a3u_ram", 8, 224, 2952, accelerator("H200-141GB")
)
V5P = TpuType("v5p", "v5p", "ct5p-hightpu-4t", 4, 16, accelerator("TPU-v5p"))
V6E = TpuType("v6e", "v6e", "ct6e-standard-4t", 4, 8, accelerator("TPU-v6e"))


@dataclass(frozen=True)
class Vm:
    index: int
    name: str
    machine: MachineType
    project: Project
    zone: str
    team: str | None  # the `team` label; None: unlabelled (unallocated to a team)
    created_us: int
    deleted_us: int
    committed_use: bool  # GPU rows carry a committed use discount credit
    slurm: bool  # scheduled by Slurm (its runs are in the sacct document)
    disk_gib: int
    labels: tuple[tuple[str, str], ...] = ()  # more labels on its rows (GKE nodes: the cluster's)


@dataclass(frozen=True)
class TpuSlice:
    index: int
    name: str  # the billed TPU node (resource.name)
    tpu: TpuType
    project: Project
    zone: str
    team: str | None
    created_us: int
    deleted_us: int


@dataclass(frozen=True)
class Bucket:
    name: str
    project: Project
    team: str | None
    base_gib: int
    growth_gib_per_day: int


@dataclass
class Fleet:
    start_us: int
    end_us: int
    vms: list[Vm] = field(default_factory=list)
    slices: list[TpuSlice] = field(default_factory=list)
    buckets: list[Bucket] = field(default_factory=list)

    @property
    def projects(self) -> tuple[Project, ...]:
        used = (
            {v.project for v in self.vms}
            | {s.project for s in self.slices}
            | {b.project for b in self.buckets}
        )
        return tuple(p for p in PROJECTS if p in used)


def _vm_window(rng: random.Random, index: int, start_us: int, end_us: int) -> tuple[int, int]:
    """Every sixth VM lives only part of the period, created and deleted mid-hour."""
    if index % 6 != 5:
        return start_us, end_us
    days = max(1, (end_us - start_us) // DAY_US)
    created = start_us + rng.randrange(days) * DAY_US + rng.randrange(1, 20 * 3600) * US
    deleted = created + rng.randrange(3 * 3600, 30 * 3600) * US + rng.randrange(1, 3600) * US
    created = min(created, end_us - 2 * HOUR_US)
    return created, min(deleted, end_us)


def _vm(rng: random.Random, index: int, start_us: int, end_us: int) -> Vm:
    machine = A3U if index % 4 == 3 else A3
    project = PROJECTS[index % 3]
    if index == 1:
        project = PROJECTS[3]  # the EUR account holds one GPU VM
    created, deleted = _vm_window(rng, index, start_us, end_us)
    return Vm(
        index=index,
        name=f"{machine.prefix}-{project.team}-{index:04d}",
        machine=machine,
        project=project,
        zone=EU_ZONE if project.account is EUR else ZONE,
        team=None if index % 8 == 6 else project.team,
        created_us=created,
        deleted_us=deleted,
        # Every fourth A3 VM, and VM 5, which lives only part of the period: the commitment
        # is used less in the hours it does not exist.
        committed_use=machine is A3 and (index % 4 == 0 or index == 5),
        slurm=machine is A3U and project.account is USD,
        disk_gib=2048 if machine is A3U else 1024,
    )


def _slices(chips: int, start_us: int, end_us: int) -> list[TpuSlice]:
    slices: list[TpuSlice] = []
    left = chips
    while left > 0:
        tpu = V5P if len(slices) % 3 == 0 and left >= V5P.chips_per_slice else V6E
        project = PROJECTS[len(slices) % 2]
        name = f"tpu-{tpu.version}-{tpu.chips_per_slice}-{len(slices):03d}"
        team = None if len(slices) % 5 == 4 else project.team
        slices.append(TpuSlice(len(slices), name, tpu, project, ZONE, team, start_us, end_us))
        left -= tpu.chips_per_slice
    return slices


def _buckets(projects: tuple[Project, ...]) -> list[Bucket]:
    found = [
        Bucket(f"{p.project_id}-checkpoints", p, p.team, 20_000 + 5_000 * i, 800 + 200 * i)
        for i, p in enumerate(projects)
    ]
    found.append(Bucket("acme-shared-datasets", PROJECTS[1], None, 90_000, 0))
    return found


def build_fleet(gpus: int, tpu_chips: int, start_us: int, end_us: int, seed: int) -> Fleet:
    """A fleet of ceil(gpus / 8) GPU VMs and slices holding at least `tpu_chips` chips."""
    rng = random.Random(f"fleet:{seed}")
    vms = [_vm(rng, i, start_us, end_us) for i in range(-(-gpus // 8))]
    fleet = Fleet(start_us, end_us, vms, _slices(tpu_chips, start_us, end_us))
    fleet.buckets = _buckets(
        tuple(
            p for p in PROJECTS if p in {v.project for v in vms} | {s.project for s in fleet.slices}
        )
    )
    return fleet
