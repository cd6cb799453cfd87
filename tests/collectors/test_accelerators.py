import pytest

from flopledger.collectors.accelerators import canonical_accelerator


@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        ("nvidia-h100-80gb", "H100-80GB"),  # GKE accelerator label
        ("nvidia-h100-mega-80gb", "H100-MEGA-80GB"),
        ("nvidia-h200-141gb", "H200-141GB"),
        ("nvidia-tesla-a100", "A100-40GB"),
        ("nvidia-a100-80gb", "A100-80GB"),
        ("nvidia-l4", "L4-24GB"),
        ("tpu-v5p-slice", "TPU-v5p"),
        ("tpu-v5-lite-podslice", "TPU-v5e"),
        ("tpu-v6e-slice", "TPU-v6e"),
        ("h100", "H100-80GB"),  # Slurm gres type
        ("TPU-v5p", "TPU-v5p"),  # canonical names pass through
        ("quantum-annealer", None),
        (None, None),
    ],
)
def test_aliases(name, canonical):
    assert canonical_accelerator(name) == canonical
