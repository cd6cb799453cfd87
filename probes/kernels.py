"""The JAX side of a probe: the device, its inputs, the matmul under test, device-side gathers.

This is where `import jax` happens (with `probes.sweep`); nothing outside `probes/` imports it.
Works on JAX 0.10 and newer: only long-stable APIs (jit, lax.Precision, random.key).
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from flopledger.probes.dtypes import ProbeDtype
from flopledger.probes.verify import freivalds_bound

Kernel = Callable[[jax.Array, jax.Array], jax.Array]
KernelFactory = Callable[[ProbeDtype], Kernel]

_BACKENDS = {"cuda": "gpu", "rocm": "gpu", "gpu": "gpu", "tpu": "tpu", "cpu": "cpu"}


def backend_of(device: jax.Device) -> str:
    """cpu, gpu or tpu (CUDA and ROCm both count as gpu)."""
    return _BACKENDS.get(device.platform.lower(), device.platform.lower())


def pick_device(index: int) -> jax.Device:
    """The index-th device JAX sees on this host (its default backend)."""
    devices = jax.local_devices()
    if not 0 <= index < len(devices):
        raise ValueError(f"device {index} not found: JAX sees {len(devices)} device(s)")
    return devices[index]


def matmul_kernel(dtype: ProbeDtype) -> Kernel:
    """The kernel under test: one jitted `a @ b` at the dtype's precision, output in its storage type."""
    precision = getattr(jax.lax.Precision, dtype.precision)

    def matmul(a: jax.Array, b: jax.Array) -> jax.Array:
        return jnp.matmul(a, b, precision=precision)

    return jax.jit(matmul)


def make_inputs(
    m: int, n: int, k: int, dtype: ProbeDtype, device: jax.Device, seed: int
) -> tuple[jax.Array, jax.Array]:
    """Standard-normal A (m x k) and B (k x n), generated on the device in the storage dtype."""
    key_a, key_b = jax.random.split(jax.random.key(seed))
    storage = jnp.dtype(dtype.storage)
    with jax.default_device(device):
        a = jax.random.normal(key_a, (m, k), dtype=storage)
        b = jax.random.normal(key_b, (k, n), dtype=storage)
    return jax.block_until_ready((jax.device_put(a, device), jax.device_put(b, device)))


def _host64(x: jax.Array) -> np.ndarray:
    return np.asarray(x.astype(jnp.float32)).astype(np.float64)


def sampled_block(
    a: jax.Array, b: jax.Array, c: jax.Array, rows: np.ndarray, cols: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A[rows, :], B[:, cols] and C[rows][:, cols], gathered on the device, as float64 on the host."""
    r, q = jnp.asarray(rows), jnp.asarray(cols)
    return _host64(a[r, :]), _host64(b[:, q]), _host64(c[r][:, q])


def freivalds_terms(
    a: jax.Array, b: jax.Array, c: jax.Array, dtype: ProbeDtype, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """C x, A (B x) and the per-row bound, with float32 GEMVs at HIGHEST precision."""
    k, n = b.shape
    x = jax.random.rademacher(jax.random.key(seed + 1), (n,), dtype=jnp.float32)
    x = jax.device_put(x, next(iter(c.devices())))
    hi = jax.lax.Precision.HIGHEST
    a32, b32, c32 = a.astype(jnp.float32), b.astype(jnp.float32), c.astype(jnp.float32)
    cx = jnp.matmul(c32, x, precision=hi)
    abx = jnp.matmul(a32, jnp.matmul(b32, x, precision=hi), precision=hi)
    abs_cx = jnp.matmul(jnp.abs(c32), jnp.abs(x), precision=hi)
    abs_abx = jnp.matmul(
        jnp.abs(a32), jnp.matmul(jnp.abs(b32), jnp.abs(x), precision=hi), precision=hi
    )
    host = [np.asarray(v).astype(np.float64) for v in (cx, abx, abs_cx, abs_abx)]
    return host[0], host[1], freivalds_bound(host[2], host[3], k, n, dtype)
