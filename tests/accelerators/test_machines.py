"""The most accelerators one machine (or one TPU slice) of a type holds, from the machine rows
(Google Cloud's machine types and TPU hosts, other clouds' GPU instances)."""

import pytest

from flopledger.accelerators import CANONICAL_NAMES
from flopledger.accelerators.machines import (
    GCP_MACHINES,
    LARGEST_TPU_SLICE,
    most_per_machine,
    most_per_resource,
)


@pytest.mark.parametrize(
    ("accelerator", "machine", "resource"),
    [
        ("H100-80GB", 8, 8),  # a3-highgpu-8g, p5.48xlarge, ND96isr H100 v5, BM.GPU.H100.8
        ("H100-MEGA-80GB", 8, 8),  # a3-megagpu-8g
        ("H200-141GB", 8, 8),  # a3-ultragpu-8g, p5e/p5en.48xlarge
        ("B200-180GB", 8, 8),  # a4-highgpu-8g
        ("A100-40GB", 16, 16),  # a2-megagpu-16g beats every 8-GPU instance
        ("A100-80GB", 8, 8),  # a2-ultragpu-8g, p4de.24xlarge
        ("L4-24GB", 8, 8),  # g2-standard-96
        ("TPU-v5p", 4, 6144),  # ct5p-hightpu-4t; the 16x16x24 slice
        ("TPU-v6e", 8, 256),  # ct6e-standard-8t; v6e-256
        ("TPU-v5e", 8, 256),  # ct5lp-hightpu-8t; v5litepod-256
        ("TPU-v4", 4, 4096),  # ct4p-hightpu-4t; a v4 Pod
    ],
)
def test_most_per_machine_and_per_resource(accelerator, machine, resource):
    assert most_per_machine(accelerator) == machine
    assert most_per_resource(accelerator) == resource


def test_no_type_or_an_unknown_one_has_no_figure():
    assert most_per_machine(None) is None and most_per_resource(None) is None
    assert most_per_machine("abacus") is None and most_per_resource("abacus") is None


def test_every_row_names_a_canonical_type_and_every_type_has_a_machine():
    assert {m.accelerator_type for m in GCP_MACHINES} == CANONICAL_NAMES
    assert set(LARGEST_TPU_SLICE) <= CANONICAL_NAMES
    assert all(m.accelerator_count > 0 for m in GCP_MACHINES)
