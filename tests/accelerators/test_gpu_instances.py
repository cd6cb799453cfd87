"""Other clouds' GPU instance types map to accelerator type and count, by the names their
FOCUS rows use (AWS ChargeDescription, Azure meter names, OCI shapes)."""

import pytest

from flopledger.accelerators import CANONICAL_NAMES
from flopledger.accelerators.instances import GPU_INSTANCES, match_instance


@pytest.mark.parametrize(
    ("text", "instance", "accelerator", "count"),
    [
        ("$98.32 per On Demand Linux p5.48xlarge Instance Hour", "p5.48xlarge", "H100-80GB", 8),
        ("USW2-BoxUsage:p5e.48xlarge", "p5e.48xlarge", "H200-141GB", 8),
        ("p5en.48xlarge", "p5en.48xlarge", "H200-141GB", 8),
        ("Linux/UNIX p4d.24xlarge", "p4d.24xlarge", "A100-40GB", 8),
        ("p4de.24xlarge", "p4de.24xlarge", "A100-80GB", 8),
        ("Standard_ND96isr_H100_v5", "Standard_ND96isr_H100_v5", "H100-80GB", 8),
        ("ND96isr H200 v5", "Standard_ND96isr_H200_v5", "H200-141GB", 8),
        ("ND96amsr A100 v4", "Standard_ND96amsr_A100_v4", "A100-80GB", 8),
        ("Standard_ND96asr_v4", "Standard_ND96asr_v4", "A100-40GB", 8),
        ("GPU - BM.GPU.H100.8", "BM.GPU.H100.8", "H100-80GB", 8),
        ("BM.GPU4.8", "BM.GPU4.8", "A100-40GB", 8),
    ],
)
def test_instance_names(text, instance, accelerator, count):
    row = match_instance(None, text)
    assert row is not None
    assert (row.instance_type, row.accelerator_type, row.accelerator_count) == (
        instance,
        accelerator,
        count,
    )


@pytest.mark.parametrize("text", ["xp5.48xlarge", "p5.48xlargex", "BM.GPU.H100.80", "m5.large", ""])
def test_near_misses_are_not_gpus(text):
    assert match_instance(text) is None


def test_every_row_names_a_known_accelerator():
    assert {r.accelerator_type for r in GPU_INSTANCES} <= CANONICAL_NAMES
