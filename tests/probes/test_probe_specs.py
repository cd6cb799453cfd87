"""The spec table: device kinds to canonical accelerator types, and peaks by type and dtype."""

from __future__ import annotations

import pytest

from flopledger.probes.specs import (
    PEAKS,
    accelerator_type_of,
    peak_for_device_kind,
    peak_tflops,
    spec_rows,
)

CANONICAL = {
    "A100-40GB",
    "A100-80GB",
    "H100-80GB",
    "H100-MEGA-80GB",
    "H200-141GB",
    "B200-180GB",
    "L4-24GB",
    "TPU-v4",
    "TPU-v5e",
    "TPU-v5p",
    "TPU-v6e",
}


@pytest.mark.parametrize(
    ("device_kind", "expected"),
    [
        ("NVIDIA H100 80GB HBM3", "H100-80GB"),
        ("NVIDIA H200", "H200-141GB"),
        ("NVIDIA B200", "B200-180GB"),
        ("NVIDIA A100-SXM4-80GB", "A100-80GB"),
        ("NVIDIA A100-SXM4-40GB", "A100-40GB"),
        ("NVIDIA A100 80GB PCIe", "A100-80GB"),
        ("NVIDIA L4", "L4-24GB"),
        ("TPU v4", "TPU-v4"),
        ("TPU v5 lite", "TPU-v5e"),
        ("TPU v5e", "TPU-v5e"),
        ("TPU v5p", "TPU-v5p"),
        ("TPU v5", "TPU-v5p"),
        ("TPU v6 lite", "TPU-v6e"),
        ("cpu", None),
        ("NVIDIA GeForce RTX 4090", None),
        ("", None),
    ],
)
def test_device_kind_to_canonical_type(device_kind: str, expected: str | None) -> None:
    assert accelerator_type_of(device_kind) == expected


def test_peaks_from_the_spec_sheets() -> None:
    assert peak_tflops("H100-80GB", "bf16") == 989.4  # 1979 with sparsity / 2
    assert peak_tflops("H100-MEGA-80GB", "bf16") == 989.4  # same SXM chip
    assert peak_tflops("H200-141GB", "fp8") == 1978.9
    assert peak_tflops("A100-40GB", "tf32") == 156.0
    assert peak_tflops("TPU-v5e", "bf16") == 197.0
    assert peak_tflops("TPU-v6e", "bf16") == 918.0
    assert peak_tflops("TPU-v5p", "fp32") is None  # not published: unknown, not 0
    assert peak_tflops(None, "bf16") is None
    assert peak_tflops("H100-80GB", "int4") is None


def test_lookup_by_device_kind_carries_the_source() -> None:
    spec = peak_for_device_kind("TPU v4", "bf16")
    assert spec is not None and spec.peak_tflops == 275.0
    assert spec.source.startswith("https://cloud.google.com/tpu/docs/v4")
    assert peak_for_device_kind("cpu", "fp32") is None


def test_table_uses_only_canonical_names_and_has_a_source_per_row() -> None:
    assert {p.accelerator_type for p in PEAKS} == CANONICAL
    assert all(p.source and p.peak_tflops > 0 for p in PEAKS)
    rows = spec_rows()
    assert len(rows) == len(PEAKS)
    assert set(rows[0]) == {"accelerator_type", "dtype", "peak_tflops", "source"}


def test_one_spec_row_per_published_peak_of_the_accelerator_table() -> None:
    # A100-40GB, A100-80GB: bf16, fp16, tf32, fp32 = 2 x 4 = 8
    # H100-80GB, H100-MEGA-80GB, H200-141GB, B200-180GB, L4-24GB: fp8 too = 5 x 5 = 25
    # TPU-v4, v5e, v5p, v6e: bf16 only = 4; TPU-v2, v3: none. 8 + 25 + 4 = 37
    assert len(spec_rows()) == 37
    assert {
        "accelerator_type": "TPU-v5p",
        "dtype": "bf16",
        "peak_tflops": 459.0,
        "source": "https://cloud.google.com/tpu/docs/v5p (per chip)",
    } in spec_rows()
