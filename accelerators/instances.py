"""GPU instance types of other clouds: which accelerator, and how many, one instance holds.

Data only (stdlib, no project imports), in the shape of mig.py. Google's GPUs are named by
their billing SKU (table.py's sku_pattern); AWS, Azure and Oracle bill by instance type, which
their FOCUS rows name in ChargeDescription, SkuMeter, SkuPriceDetails or an x_ column. Each
row's pattern is matched case-insensitively as a whole word; more specific patterns first
(p5en before p5e before p5). To add an instance type, add a row.

Sources: AWS "Amazon EC2 P5 / P4 instances" pages (p5.48xlarge: 8 x H100 80GB; p5e and p5en
.48xlarge: 8 x H200 141GB; p4d.24xlarge: 8 x A100 40GB; p4de.24xlarge: 8 x A100 80GB);
Azure "ND A100 v4", "NDm A100 v4", "ND H100 v5", "ND H200 v5" size pages (8 GPUs each); OCI
"Compute Shapes" (BM.GPU4.8: 8 x A100 40GB; BM.GPU.A100-v2.8: 8 x A100 80GB; BM.GPU.H100.8:
8 x H100 80GB; BM.GPU.H200.8: 8 x H200 141GB).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class GpuInstance:
    provider: str  # FOCUS ProviderName as the provider writes it
    instance_type: str  # the provider's name for it
    pattern: str  # regex, matched case-insensitively as a whole word
    accelerator_type: str  # canonical name (accelerators/table.py)
    accelerator_count: int  # accelerators one instance holds


GPU_INSTANCES: tuple[GpuInstance, ...] = (
    GpuInstance("AWS", "p5en.48xlarge", r"p5en\.48xlarge", "H200-141GB", 8),
    GpuInstance("AWS", "p5e.48xlarge", r"p5e\.48xlarge", "H200-141GB", 8),
    GpuInstance("AWS", "p5.48xlarge", r"p5\.48xlarge", "H100-80GB", 8),
    GpuInstance("AWS", "p5.4xlarge", r"p5\.4xlarge", "H100-80GB", 1),
    GpuInstance("AWS", "p4de.24xlarge", r"p4de\.24xlarge", "A100-80GB", 8),
    GpuInstance("AWS", "p4d.24xlarge", r"p4d\.24xlarge", "A100-40GB", 8),
    GpuInstance("Microsoft", "Standard_ND96isr_H200_v5", r"ND96isr[_ ]H200[_ ]v5", "H200-141GB", 8),
    GpuInstance("Microsoft", "Standard_ND96isr_H100_v5", r"ND96isr[_ ]H100[_ ]v5", "H100-80GB", 8),
    GpuInstance(
        "Microsoft", "Standard_ND96amsr_A100_v4", r"ND96amsr[_ ]A100[_ ]v4", "A100-80GB", 8
    ),
    GpuInstance("Microsoft", "Standard_ND96asr_v4", r"ND96asr[_ ](A100[_ ])?v4", "A100-40GB", 8),
    GpuInstance("Oracle", "BM.GPU.H200.8", r"BM\.GPU\.H200\.8", "H200-141GB", 8),
    GpuInstance("Oracle", "BM.GPU.H100.8", r"BM\.GPU\.H100\.8", "H100-80GB", 8),
    GpuInstance("Oracle", "BM.GPU.A100-v2.8", r"BM\.GPU\.A100-v2\.8", "A100-80GB", 8),
    GpuInstance("Oracle", "BM.GPU4.8", r"BM\.GPU4\.8", "A100-40GB", 8),
)

_COMPILED = tuple(
    (re.compile(rf"(?<![A-Za-z0-9.]){row.pattern}(?![A-Za-z0-9])", re.IGNORECASE), row)
    for row in GPU_INSTANCES
)


def match_instance(*texts: str | None) -> GpuInstance | None:
    """The first GPU instance type any of `texts` names (in table order), else None."""
    for pattern, row in _COMPILED:
        if any(text and pattern.search(text) for text in texts):
            return row
    return None
