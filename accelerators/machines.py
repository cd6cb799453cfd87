"""How many accelerators one machine (or one TPU slice) holds: the most a run can hold on one
resource.

Data only (stdlib and this room's instances.py, no other project imports), in the shape of
instances.py. Google Cloud's GPU machine types and TPU VM hosts are rows here; other clouds'
GPU instance types are instances.py's rows. A run's placement that holds more of an
accelerator type on one resource than the most any machine of that type holds is impossible,
and the jobs reader quarantines the run (collectors/limits.py).

A machine (a GPU VM, a TPU VM host, a Kubernetes node, a Slurm host) holds at most
`most_per_machine(type)`; a resource as billed may be a whole TPU slice (a Cloud TPU node of
many hosts, billed as one resource), which holds at most `most_per_resource(type)`: the
largest single slice of that TPU version. For GPUs the two are the same.

Sources: Google Cloud "Accelerator-optimized machine family" (a4-highgpu-8g: 8 x B200;
a3-ultragpu-8g: 8 x H200 141GB; a3-megagpu-8g: 8 x H100 80GB Mega; a3-highgpu-{1,2,4,8}g and
a3-edgegpu-8g: H100 80GB; a2-ultragpu-{1,2,4,8}g: A100 80GB; a2-highgpu-{1,2,4,8}g and
a2-megagpu-16g: A100 40GB; g2-standard-4 .. g2-standard-96: 1 to 8 x L4). Cloud TPU system
architecture pages, per version: chips per VM host (ct6e-standard-{1,4,8}t, ct5lp-hightpu-
{1,4,8}t, ct5p-hightpu-4t, ct4p-hightpu-4t; v2-8 and v3-8 hosts hold 4 chips) and the largest
single slice (v6e-256 and v5litepod-256: 256 chips; v5p 16x16x24: 6,144 chips; a v4 Pod:
4,096 chips; v3-2048: 1,024 chips; v2-512: 256 chips).
"""

from __future__ import annotations

from dataclasses import dataclass

from flopledger.accelerators.instances import GPU_INSTANCES


@dataclass(frozen=True)
class Machine:
    machine_type: str  # the provider's name for it
    accelerator_type: str  # canonical name (accelerators/table.py)
    accelerator_count: int  # accelerators one machine holds


def _series(
    prefix: str, accelerator_type: str, *counts: int, suffix: str = "g"
) -> tuple[Machine, ...]:
    return tuple(Machine(f"{prefix}-{n}{suffix}", accelerator_type, n) for n in counts)


# Google Cloud's GPU machine types and TPU VM hosts (GKE's machine types for TPU node pools).
GCP_MACHINES: tuple[Machine, ...] = (
    Machine("a4-highgpu-8g", "B200-180GB", 8),
    Machine("a3-ultragpu-8g", "H200-141GB", 8),
    Machine("a3-megagpu-8g", "H100-MEGA-80GB", 8),
    *_series("a3-highgpu", "H100-80GB", 1, 2, 4, 8),
    Machine("a3-edgegpu-8g", "H100-80GB", 8),
    *_series("a2-ultragpu", "A100-80GB", 1, 2, 4, 8),
    *_series("a2-highgpu", "A100-40GB", 1, 2, 4, 8),
    Machine("a2-megagpu-16g", "A100-40GB", 16),
    Machine("g2-standard-4", "L4-24GB", 1),
    Machine("g2-standard-24", "L4-24GB", 2),
    Machine("g2-standard-48", "L4-24GB", 4),
    Machine("g2-standard-96", "L4-24GB", 8),
    *_series("ct6e-standard", "TPU-v6e", 1, 4, 8, suffix="t"),
    *_series("ct5lp-hightpu", "TPU-v5e", 1, 4, 8, suffix="t"),
    Machine("ct5p-hightpu-4t", "TPU-v5p", 4),
    Machine("ct4p-hightpu-4t", "TPU-v4", 4),
    Machine("v3-8", "TPU-v3", 4),
    Machine("v2-8", "TPU-v2", 4),
)

# The largest single slice of each TPU version, in chips: one Cloud TPU node holds at most this.
LARGEST_TPU_SLICE: dict[str, int] = {
    "TPU-v6e": 256,
    "TPU-v5e": 256,
    "TPU-v5p": 6144,
    "TPU-v4": 4096,
    "TPU-v3": 1024,
    "TPU-v2": 256,
}


def most_per_machine(accelerator_type: str | None) -> int | None:
    """The most accelerators of that canonical type any one machine holds; None when no
    machine of the type is known."""
    rows = [(m.accelerator_type, m.accelerator_count) for m in GCP_MACHINES]
    rows += [(i.accelerator_type, i.accelerator_count) for i in GPU_INSTANCES]
    return max((count for kind, count in rows if kind == accelerator_type), default=None)


def most_per_resource(accelerator_type: str | None) -> int | None:
    """The most accelerators of that type one billed resource holds: a whole TPU slice for a
    TPU version, one machine for a GPU; None when unknown."""
    return LARGEST_TPU_SLICE.get(accelerator_type or "") or most_per_machine(accelerator_type)
