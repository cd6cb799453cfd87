"""Matmul shapes to sweep (M, N, K): squares over a range plus shapes real workloads use.

CPUs get smaller sets than accelerators: a 16384-cube takes minutes on a laptop-class CPU
and milliseconds on an H200.
"""

from __future__ import annotations

from typing import NamedTuple


class Shape(NamedTuple):
    m: int
    n: int
    k: int

    @property
    def flops(self) -> int:
        """Floating-point operations of one product: a multiply and an add per (i, j, k)."""
        return 2 * self.m * self.n * self.k

    def __str__(self) -> str:
        return f"{self.m}x{self.n}x{self.k}"


def _squares(*sizes: int) -> tuple[Shape, ...]:
    return tuple(Shape(s, s, s) for s in sizes)


# Transformer GEMMs at 8192/16384 tokens: Llama-3-8B (d=4096, ffn=14336, GQA qkv=6144) and
# Llama-3-70B (d=8192, ffn=28672, GQA qkv=10240): qkv, MLP up and MLP down projections.
_LLM = (
    Shape(8192, 6144, 4096),
    Shape(8192, 14336, 4096),
    Shape(8192, 4096, 14336),
    Shape(16384, 10240, 8192),
    Shape(16384, 28672, 8192),
    Shape(16384, 8192, 28672),
)

SHAPES: dict[tuple[str, str], tuple[Shape, ...]] = {
    ("quick", "cpu"): (
        *_squares(256, 512, 1024, 2048),
        Shape(2048, 1024, 512),
        Shape(1024, 2048, 1024),
    ),
    ("full", "cpu"): (
        *_squares(512, 1024, 1536, 2048, 3072, 4096),
        Shape(4096, 1024, 4096),
        Shape(2048, 4096, 1024),
    ),
    ("quick", "accel"): _squares(2048, 4096, 8192),
    ("full", "accel"): (*_squares(1024, 2048, 4096, 6144, 8192, 10240, 12288, 16384), *_LLM),
}


def default_shapes(mode: str, backend: str) -> tuple[Shape, ...]:
    """The shape set for --quick/--full on this backend (cpu, or an accelerator)."""
    return SHAPES[(mode, "cpu" if backend == "cpu" else "accel")]


def parse_shapes(text: str) -> tuple[Shape, ...]:
    """'MxNxK,MxNxK' or 'S' for a cube; ValueError on anything else."""
    shapes = []
    for item in filter(None, (t.strip() for t in text.split(","))):
        parts = [int(p) for p in item.lower().split("x")]
        if len(parts) == 1:
            parts = parts * 3
        if len(parts) != 3 or min(parts) <= 0:
            raise ValueError(f"bad shape {item!r}: want MxNxK with positive sizes")
        shapes.append(Shape(*parts))
    return tuple(shapes)
