import pytest

from flopledger.collectors.accelerators import canonical_accelerator, classify_sku


@pytest.mark.parametrize(
    ("description", "accelerator", "model"),
    [
        # H100 (A3 High) and its commitment / spot variants.
        ("Nvidia H100 80GB GPU running in Americas", "H100-80GB", "on_demand"),
        ("Commitment v1: Nvidia H100 80GB GPU in Americas for 1 Year", "H100-80GB", "commitment"),
        ("Spot Preemptible Nvidia H100 80GB GPU running in Americas", "H100-80GB", "spot"),
        # H100 Mega: both spellings and the "Plus" name.
        ("Nvidia H100 80GB Mega GPU running in Belgium", "H100-MEGA-80GB", "on_demand"),
        (
            "Nvidia H100 Mega 80GB GPU attached to DWS Defined Duration VMs running in Americas",
            "H100-MEGA-80GB",
            "dws",
        ),
        ("Nvidia H100 80GB Plus GPU running in Americas", "H100-MEGA-80GB", "on_demand"),
        # H200 has no "Nvidia" prefix.
        ("H200 141GB GPU running in Americas", "H200-141GB", "on_demand"),
        ("Reserved H200 141GB GPU running in Netherlands", "H200-141GB", "reserved"),
        # B200 (A4) is sold per "1 gpu slice".
        ("A4 Nvidia B200 (1 gpu slice) running in Americas", "B200-180GB", "on_demand"),
        ("Spot Preemptible A4 Nvidia B200 (1 gpu slice) running in Americas", "B200-180GB", "spot"),
        (
            "Commitment v1: A4 Nvidia B200 (1 gpu slice) in Americas for 3 Years",
            "B200-180GB",
            "commitment",
        ),
        # A100 40 GB vs 80 GB.
        ("Nvidia Tesla A100 GPU running in Americas", "A100-40GB", "on_demand"),
        ("Nvidia A100 80GB GPU running in Americas", "A100-80GB", "on_demand"),
        ("Preemptible Nvidia Tesla A100 GPU running in Americas", "A100-40GB", "spot"),
        ("Nvidia L4 GPU running in Americas", "L4-24GB", "on_demand"),
        # TPUs under Compute Engine (v5e, v5p, v6e) and the legacy Cloud TPU service (v4).
        ("TpuV5e chip running in Americas", "TPU-v5e", "on_demand"),
        ("TpuV5p chip running in Americas", "TPU-v5p", "on_demand"),
        ("Preemptible TpuV6e chip running in Americas", "TPU-v6e", "spot"),
        ("Tpu-v4 Pod running in Americas", "TPU-v4", "on_demand"),
        # Not accelerators: the VM's cores and RAM around the GPUs, storage.
        ("A3 Instance Core running in Americas", None, "on_demand"),
        ("N1 Predefined Instance Ram running in Americas", None, "on_demand"),
        ("Standard Storage US Multi-region", None, "on_demand"),
    ],
)
def test_sku_families(description, accelerator, model):
    info = classify_sku(description)
    assert info.accelerator_type == accelerator
    assert info.pricing_model == model


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
