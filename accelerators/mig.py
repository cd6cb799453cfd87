"""MIG (Multi-Instance GPU) profiles per GPU model: which share of the GPU a slice holds.

Data only (stdlib, no project imports). A GPU instance of profile `<g>g.<mem>gb` holds g of
the GPU's 7 compute slices, so a pod holding one `1g.10gb` slice of an H100 80GB holds 1/7 of
that GPU, and seven of them hold the whole GPU; a `7g.80gb` holds all of it. The share is the
compute fraction (the `g`), as NVIDIA's MIG user guide ("Supported MIG Profiles") lists the
fraction of SMs; the memory-heavy `1g.20gb` still holds 1/7 of the compute (it is charged as
such: the books close either way, the leftover going to the GPU's idle). `+me` (media
extensions) variants hold the same share as their base profile.

Kubernetes (the NVIDIA device plugin's mixed strategy) asks for slices as the extended
resource `nvidia.com/mig-<profile>`, e.g. `nvidia.com/mig-1g.10gb: 1`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

SLICES_PER_GPU = 7  # compute slices of every MIG-capable GPU below (A30's 4 is not in the table)


@dataclass(frozen=True)
class MigProfile:
    accelerator_type: str  # canonical name (accelerators/table.py)
    profile: str  # e.g. "1g.10gb"
    compute_slices: int  # g: compute slices of the 7
    memory_gb: int

    @property
    def share(self) -> Fraction:
        """Share of one GPU the slice holds: compute_slices / 7."""
        return Fraction(self.compute_slices, SLICES_PER_GPU)


def _profiles(accelerator_type: str, *names: str) -> tuple[MigProfile, ...]:
    rows = []
    for name in names:
        compute, memory = name.split("+")[0].split(".")
        rows.append(MigProfile(accelerator_type, name, int(compute[:-1]), int(memory[:-2])))
    return tuple(rows)


# Profiles per GPU model (NVIDIA MIG user guide, "Supported MIG Profiles"; names carry the
# memory each instance gets, so they differ by the GPU's memory size).
MIG_PROFILES: tuple[MigProfile, ...] = (
    *_profiles(
        "A100-40GB", "1g.5gb", "1g.5gb+me", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"
    ),
    *_profiles(
        "A100-80GB", "1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"
    ),
    *_profiles(
        "H100-80GB", "1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"
    ),
    *_profiles(
        "H100-MEGA-80GB",
        "1g.10gb",
        "1g.10gb+me",
        "1g.20gb",
        "2g.20gb",
        "3g.40gb",
        "4g.40gb",
        "7g.80gb",
    ),
    *_profiles(
        "H200-141GB",
        "1g.18gb",
        "1g.18gb+me",
        "1g.35gb",
        "2g.35gb",
        "3g.71gb",
        "4g.71gb",
        "7g.141gb",
    ),
    *_profiles(
        "B200-180GB",
        "1g.23gb",
        "1g.23gb+me",
        "1g.45gb",
        "2g.45gb",
        "3g.90gb",
        "4g.90gb",
        "7g.180gb",
    ),
)


def mig_profile(accelerator_type: str | None, profile: str) -> MigProfile | None:
    """The profile row of that GPU model, or None. Without a model, any model's row of that
    name (they agree on the share: the `g` is in the name)."""
    name = profile.removeprefix("mig-")
    for row in MIG_PROFILES:
        if row.profile == name and accelerator_type in (None, row.accelerator_type):
            return row
    return None


def mig_share(profile: str) -> Fraction | None:
    """Share of a GPU that a slice of `profile` ("1g.10gb", "mig-3g.40gb") holds, from its
    `<g>g.` prefix; None when the name is not a MIG profile."""
    name = profile.removeprefix("mig-")
    head, dot, memory = name.partition(".")
    if (
        not dot
        or not head.endswith("g")
        or not head[:-1].isdigit()
        or not memory.split("+")[0].endswith("gb")
    ):
        return None
    slices = int(head[:-1])
    if not 1 <= slices <= SLICES_PER_GPU:
        return None
    return Fraction(slices, SLICES_PER_GPU)
