"""The dtypes a probe can sweep: storage type, matmul precision and rounding error, as data.

No JAX here: names are strings that `probes.kernels` turns into JAX dtypes.
"""

from __future__ import annotations

from typing import NamedTuple


class ProbeDtype(NamedTuple):
    name: str  # the name on the command line and in probe_results.dtype
    storage: str  # numpy/JAX dtype name of inputs and output
    precision: str  # jax.lax.Precision name for the dot: DEFAULT, HIGH (TF32), HIGHEST
    output_roundoff: float  # unit roundoff of the stored output (half an ulp, relative)
    input_roundoff: float  # rounding of the inputs inside the dot (TF32 rounds fp32 inputs)
    accumulate_roundoff: float  # unit roundoff of the accumulator


PROBE_DTYPES: tuple[ProbeDtype, ...] = (
    ProbeDtype("bf16", "bfloat16", "DEFAULT", 2.0**-8, 0.0, 2.0**-24),
    ProbeDtype("fp16", "float16", "DEFAULT", 2.0**-11, 0.0, 2.0**-24),
    # TF32: fp32 storage, inputs rounded to a 10-bit mantissa inside the dot, fp32 accumulation.
    ProbeDtype("tf32", "float32", "HIGH", 2.0**-24, 2.0**-10, 2.0**-24),
    # True fp32 (TPUs emulate it with bf16 passes: a little looser than IEEE fp32).
    ProbeDtype("fp32", "float32", "HIGHEST", 2.0**-24, 2.0**-22, 2.0**-22),
)

_BY_NAME = {d.name: d for d in PROBE_DTYPES}


def probe_dtype(name: str) -> ProbeDtype:
    """The dtype row for a command-line name; ValueError naming the choices otherwise."""
    try:
        return _BY_NAME[name.strip().lower()]
    except KeyError:
        choices = ", ".join(_BY_NAME)
        raise ValueError(f"unknown probe dtype {name!r} (choose from {choices})") from None
