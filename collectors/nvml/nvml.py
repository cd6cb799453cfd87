"""The one door to NVML: the only module that imports `pynvml` (from `nvidia-ml-py`).

`Nvml` wraps a backend, either the real `pynvml` module or an object with the same
function names (`collectors.nvml.simulated.SimulatedNvml`), and reaches it through one
query helper, `Nvml.query`:

- NVML is initialised lazily, on the first query;
- "not supported", "no permission", "function not found" (an older driver) and
  "timeout" give None, never 0;
- a lost GPU (`NVMLError_GpuIsLost`) raises `GpuLost`, which the sampler turns into a row
  with `status='lost'`;
- a driver that went away (uninitialised / not loaded) gives None and re-initialises
  on the next query, so a driver reload is survived;
- a missing library is one `NvmlUnavailable` error with the fix.
"""

from __future__ import annotations

import logging
from types import ModuleType
from typing import Any

log = logging.getLogger(__name__)

FIX_HINT = "pip install nvidia-ml-py"


class NvmlUnavailable(RuntimeError):
    """NVML cannot be used here (bindings not installed, or no driver)."""


class GpuLost(Exception):
    """The GPU fell off the bus (`NVMLError_GpuIsLost`)."""


def load_pynvml() -> ModuleType:
    """The `pynvml` module, imported on first use; a clear error with the fix if missing."""
    try:
        import pynvml  # noqa: TID251  (this is the one module allowed to)
    except ImportError as exc:
        raise NvmlUnavailable(
            f"the NVML Python bindings are not installed ({exc}); fix: {FIX_HINT}"
        ) from exc
    return pynvml


class Nvml:
    """NVML behind one query helper. `backend=None` means the real `pynvml`."""

    def __init__(self, backend: Any | None = None) -> None:
        self._backend = backend
        self._pynvml: ModuleType | None = None
        self._initialized = False
        self._handles: dict[int, Any] = {}
        self._warned: set[tuple[str, str]] = set()
        self._generation = 0

    @property
    def pynvml(self) -> ModuleType:
        """The real `pynvml` module: its error classes and constants (no driver needed)."""
        if self._pynvml is None:
            self._pynvml = load_pynvml()
        return self._pynvml

    @property
    def lib(self) -> Any:
        """The backend whose `nvml*` functions are called."""
        if self._backend is None:
            self._backend = self.pynvml
        return self._backend

    @property
    def generation(self) -> int:
        """Bumped on every (re-)initialisation: handles and samples from before are stale."""
        return self._generation

    def init(self) -> None:
        """Initialise NVML once (again after a driver reload)."""
        if self._initialized:
            return
        errors = self.pynvml
        try:
            self.lib.nvmlInit()
        except errors.NVMLError as exc:
            raise NvmlUnavailable(
                f"NVML could not start ({exc}); check that the NVIDIA driver is loaded "
                "(`nvidia-smi` works) and that libnvidia-ml.so.1 is on the library path"
            ) from exc
        self._initialized = True
        self._generation += 1
        self._handles.clear()

    def shutdown(self) -> None:
        """Release NVML (safe to call twice)."""
        if self._initialized:
            self._initialized = False
            self._handles.clear()
            self.query_uninitialized("nvmlShutdown")

    def query_uninitialized(self, fn: str, *args: Any) -> Any:
        """Call `fn` without initialising first (for shutdown)."""
        try:
            return getattr(self.lib, fn)(*args)
        except self.pynvml.NVMLError as exc:
            self._warn_once(fn, exc)
            return None

    def query(self, fn: str, *args: Any) -> Any:
        """`fn(*args)` on the backend: its value, None when unknown; `GpuLost` if lost."""
        self.init()
        errors = self.pynvml
        try:
            return getattr(self.lib, fn)(*args)
        except errors.NVMLError_GpuIsLost as exc:
            raise GpuLost(fn) from exc
        except (
            errors.NVMLError_NotSupported,
            errors.NVMLError_NoPermission,
            errors.NVMLError_FunctionNotFound,
            errors.NVMLError_Timeout,
            errors.NVMLError_NotFound,  # e.g. an empty MIG slot
        ):
            return None
        except (errors.NVMLError_Uninitialized, errors.NVMLError_DriverNotLoaded) as exc:
            self._warn_once(fn, exc)
            self._initialized = False  # driver reload: start again on the next query
            return None
        except errors.NVMLError as exc:
            self._warn_once(fn, exc)
            return None

    def device_count(self) -> int:
        """How many GPUs NVML sees (0 when it cannot say)."""
        count = self.query("nvmlDeviceGetCount")
        return int(count) if count is not None else 0

    def handle(self, index: int) -> Any:
        """The device handle of GPU `index` (cached until NVML is re-initialised)."""
        self.init()
        if index not in self._handles:
            handle = self.query("nvmlDeviceGetHandleByIndex", index)
            if handle is None:
                return None
            self._handles[index] = handle
        return self._handles[index]

    def _warn_once(self, fn: str, exc: Exception) -> None:
        key = (fn, type(exc).__name__)
        if key not in self._warned:
            self._warned.add(key)
            log.warning("NVML %s failed: %s (further such errors are not logged)", fn, exc)


def text(value: Any) -> str | None:
    """NVML strings arrive as `str` (new bindings) or `bytes` (old ones)."""
    if value is None:
        return None
    return value.decode() if isinstance(value, bytes) else str(value)


def total_energy_mj(nvml: Nvml, gpu_index: int) -> int | None:
    """GPU `gpu_index`'s total-energy counter in millijoules (real NVML), None if unavailable.

    For the probes: read it before and after a workload; the difference is its energy.
    None when the bindings or driver are missing, the GPU is lost, or the counter is not
    supported (pre-Volta, some vGPUs).
    """
    try:
        handle = nvml.handle(gpu_index)
        if handle is None:
            return None
        value = nvml.query("nvmlDeviceGetTotalEnergyConsumption", handle)
    except (NvmlUnavailable, GpuLost) as exc:
        log.debug("total_energy_mj(%d): %s", gpu_index, exc)
        return None
    return int(value) if value is not None else None
