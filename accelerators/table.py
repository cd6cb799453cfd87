"""The accelerator table: one row per accelerator type, every fact about it in one place.

Rows are in matching order: the classifier and the device-kind lookup try patterns top to
bottom and the first match wins, so more specific patterns come first (H100 Mega before H100,
A100 80GB before A100). To add an accelerator type, add a row.

Peaks are the vendor's dense (no sparsity) TFLOP/s; NVIDIA datasheets print sparsity figures,
so their dense figure is half of it. NVML captures are from shared/data/nvidia-smi/ (driver
590.48.01, idle and under gpu-burn).
"""

from __future__ import annotations

from flopledger.accelerators.spec import Accelerator, NvmlCapture, Peak

GIB = 2**30
MIB = 2**20

_A100 = "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf (SXM, dense)"
_H100 = "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet (H100 SXM, dense = half the sparsity figure)"
_H200 = (
    "https://www.nvidia.com/en-us/data-center/h200/ (H200 SXM, dense = half the sparsity figure)"
)
_B200 = "https://www.nvidia.com/en-us/data-center/hgx/ (HGX B200 per GPU, dense = half the sparsity figure)"
_L4 = (
    "https://www.nvidia.com/en-us/data-center/l4/ (L4 datasheet, dense = half the sparsity figure)"
)
_V4 = "https://cloud.google.com/tpu/docs/v4 (per chip)"
_V5E = "https://cloud.google.com/tpu/docs/v5e (per chip)"
_V5P = "https://cloud.google.com/tpu/docs/v5p (per chip)"
_V6E = "https://cloud.google.com/tpu/docs/v6e (per chip)"


def _peaks(**tflops: float) -> tuple[Peak, ...]:
    """Peaks in keyword order: `_peaks(bf16=989.4)`."""
    return tuple(Peak(dtype, value) for dtype, value in tflops.items())


_A100_PEAKS = _peaks(bf16=312.0, fp16=312.0, tf32=156.0, fp32=19.5)
_HOPPER_PEAKS = _peaks(fp8=1978.9, bf16=989.4, fp16=989.4, tf32=494.7, fp32=66.9)

# The H100 capture: 629-636 W under load, idle 69.85 W at 345 MHz (GpuIdle).
_H100_NVML = NvmlCapture(
    mem_total_bytes=81559 * MIB,
    mem_clock_mhz=2619,
    sm_clock_max_mhz=1980,
    sm_clock_idle_mhz=345,
    idle_power_w=69.85,
    busy_power_w=632.0,
)
_H200_NVML = NvmlCapture(
    mem_total_bytes=143771 * MIB,
    mem_clock_mhz=3201,
    sm_clock_max_mhz=1980,
    sm_clock_idle_mhz=345,
    idle_power_w=77.67,
    busy_power_w=629.0,
)


ACCELERATORS: tuple[Accelerator, ...] = (
    # Billing: "Nvidia H100 80GB Mega GPU", "Nvidia H100 Mega 80GB GPU", "Nvidia H100 80GB Plus
    # GPU". The same H100 SXM chip as H100-80GB (GCP A3 Mega): JAX and NVML cannot tell them apart.
    Accelerator(
        name="H100-MEGA-80GB",
        kind="gpu",
        vendor="nvidia",
        sku_pattern=r"\bH100 (80GB (Mega|Plus)|Mega 80GB)\b",
        alias_pattern=r"h100[-_ ]?(80gb[-_ ]?)?mega",
        device_name="NVIDIA H100 80GB HBM3",
        device_pattern=None,
        memory_bytes=80 * GIB,
        board_power_w=700.0,
        peaks=_HOPPER_PEAKS,
        peak_source=_H100,
    ),
    Accelerator(
        name="H100-80GB",
        kind="gpu",
        vendor="nvidia",
        sku_pattern=r"\bH100 80GB\b",
        alias_pattern=r"\bh100\b|h100[-_ ]?80gb|h100[-_ ]?sxm",
        device_name="NVIDIA H100 80GB HBM3",
        device_pattern=r"\bH100\b",
        memory_bytes=80 * GIB,
        board_power_w=700.0,
        peaks=_HOPPER_PEAKS,
        peak_source=_H100,
        nvml=_H100_NVML,
    ),
    # Billing: "H200 141GB GPU running in Americas" (no "Nvidia" prefix).
    Accelerator(
        name="H200-141GB",
        kind="gpu",
        vendor="nvidia",
        sku_pattern=r"\bH200 141GB\b",
        alias_pattern=r"h200",
        device_name="NVIDIA H200",
        device_pattern=r"\bH200\b",
        memory_bytes=141 * 10**9,
        board_power_w=700.0,
        peaks=_HOPPER_PEAKS,
        peak_source=_H200,
        nvml=_H200_NVML,
    ),
    # Billing: "A4 Nvidia B200 (1 gpu slice) running in Americas".
    Accelerator(
        name="B200-180GB",
        kind="gpu",
        vendor="nvidia",
        sku_pattern=r"\bB200\b",
        alias_pattern=r"b200",
        device_name="NVIDIA B200",
        device_pattern=r"\bB200\b",
        board_power_w=1000.0,
        peaks=_peaks(fp8=4500.0, bf16=2250.0, fp16=2250.0, tf32=1100.0, fp32=75.0),
        peak_source=_B200,
    ),
    # JAX: "NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB PCIe".
    Accelerator(
        name="A100-80GB",
        kind="gpu",
        vendor="nvidia",
        sku_pattern=r"\bA100 80GB\b",
        alias_pattern=r"a100[-_ ]?80gb",
        device_name="NVIDIA A100-SXM4-80GB",
        device_pattern=r"\bA100\b.*80\s?GB",
        board_power_w=400.0,
        peaks=_A100_PEAKS,
        peak_source=_A100,
    ),
    # Billing: "Nvidia Tesla A100 GPU running in Americas" is the 40 GB part.
    # JAX: "NVIDIA A100-SXM4-40GB", "NVIDIA A100-PCIE-40GB".
    Accelerator(
        name="A100-40GB",
        kind="gpu",
        vendor="nvidia",
        sku_pattern=r"\b(Tesla )?A100\b",
        alias_pattern=r"a100([-_ ]?40gb)?",
        device_name="NVIDIA A100-SXM4-40GB",
        device_pattern=r"\bA100\b",
        board_power_w=400.0,
        peaks=_A100_PEAKS,
        peak_source=_A100,
    ),
    Accelerator(
        name="L4-24GB",
        kind="gpu",
        vendor="nvidia",
        sku_pattern=r"\bNvidia L4\b|\bL4 GPU\b",
        alias_pattern=r"(nvidia[-_ ])?\bl4\b",
        device_name="NVIDIA L4",
        device_pattern=r"\bL4\b",
        board_power_w=72.0,
        peaks=_peaks(fp8=242.5, bf16=121.0, fp16=121.0, tf32=60.0, fp32=30.3),
        peak_source=_L4,
    ),
    Accelerator(
        name="TPU-v6e",
        kind="tpu",
        vendor="google",
        sku_pattern=r"TpuV6e|\bTPU v6e\b|Trillium",
        alias_pattern=r"v6e|v6[-_ ]?lite|trillium",
        device_name="TPU v6 lite",
        device_pattern=r"\bTPU\s?v6\s?(lite|e)\b",
        memory_bytes=32 * GIB,
        peaks=_peaks(bf16=918.0),
        peak_source=_V6E,
    ),
    # Older JAX calls a v5p "TPU v5".
    Accelerator(
        name="TPU-v5p",
        kind="tpu",
        vendor="google",
        sku_pattern=r"TpuV5p|\bTPU v5p\b|Tpu-v5p",
        alias_pattern=r"v5p",
        device_name="TPU v5p",
        device_pattern=r"\bTPU\s?v5(p\b|$)",
        memory_bytes=95 * GIB,
        peaks=_peaks(bf16=459.0),
        peak_source=_V5P,
    ),
    Accelerator(
        name="TPU-v5e",
        kind="tpu",
        vendor="google",
        sku_pattern=r"TpuV5e|\bTPU v5e\b|TpuV5litepod|v5 ?lite",
        alias_pattern=r"v5e|v5[-_ ]?lite(pod)?",
        device_name="TPU v5 lite",
        device_pattern=r"\bTPU\s?v5\s?(lite|e)\b",
        peaks=_peaks(bf16=197.0),
        peak_source=_V5E,
    ),
    # Legacy Cloud TPU service (E000-3F24-B8AA): "Tpu-v4 ...", "TPU v4 Pod ...".
    Accelerator(
        name="TPU-v4",
        kind="tpu",
        vendor="google",
        sku_pattern=r"\bTpu-?v4\b|\bTPU v4\b",
        alias_pattern=r"(tpu[-_ ]?)v4\b",
        device_name="TPU v4",
        device_pattern=r"\bTPU\s?v4\b",
        peaks=_peaks(bf16=275.0),
        peak_source=_V4,
    ),
    Accelerator(
        name="TPU-v3",
        kind="tpu",
        vendor="google",
        sku_pattern=r"\bTpu-?v3\b|\bTPU v3\b",
        alias_pattern=r"(tpu[-_ ]?)v3\b",
        device_name=None,
        device_pattern=None,
    ),
    Accelerator(
        name="TPU-v2",
        kind="tpu",
        vendor="google",
        sku_pattern=r"\bTpu-?v2\b|\bTPU v2\b",
        alias_pattern=r"(tpu[-_ ]?)v2\b",
        device_name=None,
        device_pattern=None,
    ),
)
