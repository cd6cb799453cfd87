"""Which row a SKU description, a scheduler's alias or a JAX device_kind means."""

from __future__ import annotations

import pytest

from flopledger.accelerators import match_alias, match_device_kind, match_sku


@pytest.mark.parametrize(
    ("description", "expected"),
    [
        # sku.description strings as the export writes them (shared/data/formats/gcp_sku_descriptions).
        ("Nvidia H100 80GB GPU running in Americas", "H100-80GB"),
        # "H100 80GB" is in all three: the Mega row comes first, so Mega and Plus win.
        ("Nvidia H100 80GB Mega GPU running in Belgium", "H100-MEGA-80GB"),
        ("Nvidia H100 80GB Plus GPU running in Americas", "H100-MEGA-80GB"),
        ("H200 141GB GPU running in Americas", "H200-141GB"),
        ("A4 Nvidia B200 (1 gpu slice) running in Americas", "B200-180GB"),
        # "A100" is in both: the 80 GB row comes first; the bare Tesla A100 is the 40 GB part.
        ("Nvidia A100 80GB GPU running in Americas", "A100-80GB"),
        ("Nvidia Tesla A100 GPU running in Americas", "A100-40GB"),
        ("Nvidia L4 GPU running in Americas", "L4-24GB"),
        ("TpuV5p chip running in Americas", "TPU-v5p"),
        ("Tpu-v4 Pod running in Americas", "TPU-v4"),
        ("Standard Storage US Multi-region", None),
    ],
)
def test_sku_descriptions(description: str, expected: str | None) -> None:
    row = match_sku(description)
    assert (None if row is None else row.name) == expected


@pytest.mark.parametrize(
    ("alias", "expected"),
    [
        ("nvidia-h100-mega-80gb", "H100-MEGA-80GB"),  # GKE accelerator label
        ("nvidia-h100-80gb", "H100-80GB"),
        ("h200", "H200-141GB"),  # Slurm gres type
        ("tpu-v5-lite-podslice", "TPU-v5e"),
        ("quantum-annealer", None),
    ],
)
def test_aliases(alias: str, expected: str | None) -> None:
    row = match_alias(alias)
    assert (None if row is None else row.name) == expected


@pytest.mark.parametrize(
    ("device_kind", "expected"),
    [
        # An A3 Mega's H100 says the same as any H100: device_kind cannot name the Mega row.
        ("NVIDIA H100 80GB HBM3", "H100-80GB"),
        ("NVIDIA A100 80GB PCIe", "A100-80GB"),
        ("NVIDIA A100-PCIE-40GB", "A100-40GB"),
        ("TPU v5 lite", "TPU-v5e"),
        ("TPU v5", "TPU-v5p"),  # older JAX
        ("  TPU v6 lite  ", "TPU-v6e"),
        ("TPU v3", None),  # no spec row to measure against
        ("cpu", None),
    ],
)
def test_device_kinds(device_kind: str, expected: str | None) -> None:
    row = match_device_kind(device_kind)
    assert (None if row is None else row.name) == expected
