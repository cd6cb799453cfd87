"""Accelerator facts: one table, one row per accelerator type (stdlib only, no project imports).

- `accelerators.spec`: the row's shape (`Accelerator`, `Peak`, `NvmlCapture`).
- `accelerators.table`: the rows (`ACCELERATORS`): names, patterns, memory, power, peaks.
- `accelerators.lookup`: a row or a peak by canonical name.
- `accelerators.match`: the row a SKU description, alias or JAX device_kind means.

The billing SKU classifier (collectors/skus.py), the probes' spec table (probes/specs.py,
and from it the `accelerator_specs` warehouse table that MFU is measured against), the fleet
simulator and the simulated NVML all read this table.
"""

from flopledger.accelerators.lookup import (
    CANONICAL_NAMES,
    accelerator,
    find_accelerator,
    peak_tflops,
)
from flopledger.accelerators.match import match_alias, match_device_kind, match_sku
from flopledger.accelerators.spec import DTYPES, Accelerator, NvmlCapture, Peak
from flopledger.accelerators.table import ACCELERATORS

__all__ = [
    "ACCELERATORS",
    "CANONICAL_NAMES",
    "DTYPES",
    "Accelerator",
    "NvmlCapture",
    "Peak",
    "accelerator",
    "find_accelerator",
    "match_alias",
    "match_device_kind",
    "match_sku",
    "peak_tflops",
]
