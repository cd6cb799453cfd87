"""The accelerator table's facts, against the vendors' published figures written out here."""

from __future__ import annotations

import dataclasses

import pytest

from flopledger.accelerators import (
    ACCELERATORS,
    CANONICAL_NAMES,
    DTYPES,
    accelerator,
    find_accelerator,
    peak_tflops,
)


@pytest.mark.parametrize(
    ("name", "dtype", "published"),
    [
        # A100 datasheet: BFLOAT16 Tensor Core "312 TFLOPS | 624 TFLOPS*" (* with sparsity).
        ("A100-40GB", "bf16", 312.0),
        ("A100-80GB", "bf16", 312.0),
        # L4 datasheet: BF16 242 TFLOPS with sparsity; dense = 242 / 2 = 121.
        ("L4-24GB", "bf16", 121.0),
        # HGX B200: BF16 36 PFLOPS for 8 GPUs with sparsity; dense per GPU = 36,000 / 8 / 2 = 2,250.
        ("B200-180GB", "bf16", 2250.0),
        # Cloud TPU docs, peak bf16 compute per chip.
        ("TPU-v4", "bf16", 275.0),
        ("TPU-v5e", "bf16", 197.0),
        ("TPU-v5p", "bf16", 459.0),
        ("TPU-v6e", "bf16", 918.0),
    ],
)
def test_peaks_are_the_published_dense_figures(name: str, dtype: str, published: float) -> None:
    assert peak_tflops(name, dtype) == published


def test_h100_mega_is_the_same_chip_as_h100() -> None:
    # GCP's A3 Mega carries H100 SXM parts: same peaks, memory and board power.
    mega, h100 = accelerator("H100-MEGA-80GB"), accelerator("H100-80GB")
    assert (mega.peaks, mega.memory_bytes, mega.board_power_w) == (
        h100.peaks,
        h100.memory_bytes,
        h100.board_power_w,
    )
    assert mega.device_name == h100.device_name == "NVIDIA H100 80GB HBM3"


def test_unpublished_peaks_are_unknown_not_zero() -> None:
    assert peak_tflops("TPU-v5p", "fp32") is None  # Google publishes bf16 (and int8) only
    assert peak_tflops("TPU-v3", "bf16") is None  # a row without peaks
    assert peak_tflops("H100-80GB", "int4") is None
    assert peak_tflops("quantum-annealer", "bf16") is None
    assert peak_tflops(None, "bf16") is None


def test_memory_and_power() -> None:
    h100, h200 = accelerator("H100-80GB"), accelerator("H200-141GB")
    assert h100.memory_bytes == 85_899_345_920  # 80 GiB = 80 x 1024^3
    assert h200.memory_bytes == 141_000_000_000  # 141 GB = 141 x 10^9
    assert accelerator("TPU-v5p").memory_bytes == 102_005_473_280  # 95 GiB = 95 x 1024^3
    assert accelerator("TPU-v6e").memory_bytes == 34_359_738_368  # 32 GiB = 32 x 1024^3
    # The H100 capture: "Default Power Limit : 700.00 W".
    assert h100.board_power_w == 700.0


def test_nvml_captures() -> None:
    h100, h200 = accelerator("H100-80GB").nvml, accelerator("H200-141GB").nvml
    assert h100 is not None and h200 is not None
    # nvidia-smi "FB Memory Usage / Total : 81559 MiB" = 81,559 x 1,048,576 bytes.
    assert h100.mem_total_bytes == 85_520_809_984
    assert (h100.idle_power_w, h100.busy_power_w) == (69.85, 632.0)
    assert h200.mem_total_bytes == 150_754_820_096  # 143,771 MiB x 1,048,576
    assert (h200.idle_power_w, h200.busy_power_w) == (77.67, 629.0)
    assert accelerator("B200-180GB").nvml is None  # no capture yet


def test_lookup_by_name() -> None:
    assert find_accelerator("TPU-v6e") is accelerator("TPU-v6e")
    assert find_accelerator("tpu-v6e") is None  # canonical names are exact
    assert find_accelerator(None) is None
    with pytest.raises(KeyError, match="H300"):
        accelerator("H300-999GB")


def test_the_table_is_well_formed() -> None:
    names = [a.name for a in ACCELERATORS]
    assert len(names) == len(set(names)) == len(CANONICAL_NAMES) == 13  # 7 GPU + 6 TPU types
    assert {a.kind for a in ACCELERATORS} == {"gpu", "tpu"}
    for row in ACCELERATORS:
        assert all(p.dtype in DTYPES and p.tflops > 0 for p in row.peaks), row.name
        assert (row.peak_source is None) == (row.peaks == ()), row.name


def test_rows_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        accelerator("H100-80GB").memory_bytes = 0  # type: ignore[misc]
