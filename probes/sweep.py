"""The sweep: for each dtype and shape, compile, warm up, time, verify, meter energy, record.

Everything that touches the outside world is injectable: the clock (timing), `now`
(measured_at), the kernel factory (tests feed a wrong kernel), the energy meter and the
progress callback. A shape that fails (out of memory, a wrong answer) becomes a row with
`verified = false` and a reason; the sweep goes on.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

import jax
import numpy as np

from flopledger.probes import PROBE_VERSION
from flopledger.probes.cpu_peak import cpu_peak_source, numpy_peak_tflops
from flopledger.probes.dtypes import ProbeDtype, probe_dtype
from flopledger.probes.energy import EnergyMeter, energy_between_j, nvml_energy_meter
from flopledger.probes.kernels import (
    KernelFactory,
    backend_of,
    freivalds_terms,
    make_inputs,
    matmul_kernel,
    pick_device,
    sampled_block,
)
from flopledger.probes.results import ProbeResult, result_id
from flopledger.probes.shapes import Shape
from flopledger.probes.specs import accelerator_type_of, peak_spec
from flopledger.probes.timing import Clock, Timing, TimingPolicy, calibrate, measure
from flopledger.probes.verify import Verdict, check_block, check_freivalds, combine

Progress = Callable[[int, int, ProbeResult], None]


def utc_now() -> datetime:
    """Now, naive UTC."""
    return datetime.now(UTC).replace(tzinfo=None)


@dataclass(frozen=True)
class SweepConfig:
    dtypes: tuple[str, ...]
    shapes: tuple[Shape, ...]
    node: str
    device_index: int = 0
    policy: TimingPolicy = field(default_factory=TimingPolicy)
    sample_side: int = 16  # rows and columns of C checked against float64 (side x side entries)
    seed: int = 0
    estimate_cpu_peak: bool = True


@dataclass(frozen=True)
class Peak:
    tflops: float | None
    source: str | None


@dataclass
class Sweep:
    config: SweepConfig
    clock: Clock = time.perf_counter
    now: Callable[[], datetime] = utc_now
    kernel_factory: KernelFactory = matmul_kernel
    energy: EnergyMeter | None = None
    progress: Progress | None = None
    _cpu_peak: Peak | None = None

    def run(self) -> list[ProbeResult]:
        """Every (dtype, shape) of the config, in order."""
        device = pick_device(self.config.device_index)
        if self.energy is None:
            self.energy = nvml_energy_meter(backend_of(device), self.config.device_index)
        jobs = [(probe_dtype(d), s) for d in self.config.dtypes for s in self.config.shapes]
        results = []
        for i, (dtype, shape) in enumerate(jobs, start=1):
            results.append(self.probe(device, dtype, shape))
            if self.progress is not None:
                self.progress(i, len(jobs), results[-1])
        return results

    def probe(self, device: jax.Device, dtype: ProbeDtype, shape: Shape) -> ProbeResult:
        """One shape in one dtype; errors become a failed row."""
        started = self.now()
        try:
            timing, energy_j, verdict = self._measure(device, dtype, shape)
        except Exception as exc:  # noqa: BLE001 - one bad shape (e.g. out of memory) must not end the sweep
            failure = f"error: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
            return self._result(
                started, device, dtype, shape, None, None, Verdict(False, None, failure)
            )
        return self._result(started, device, dtype, shape, timing, energy_j, verdict)

    def _measure(
        self, device: jax.Device, dtype: ProbeDtype, shape: Shape
    ) -> tuple[Timing, float | None, Verdict]:
        a, b = make_inputs(shape.m, shape.n, shape.k, dtype, device, self.config.seed)
        kernel = self.kernel_factory(dtype)

        def call() -> jax.Array:
            return kernel(a, b)

        plan = calibrate(call, jax.block_until_ready, self.clock, self.config.policy)
        before_j = self.energy() if self.energy else None
        timing = measure(call, jax.block_until_ready, self.clock, plan)
        after_j = self.energy() if self.energy else None
        verdict = self._verify(a, b, jax.block_until_ready(call()), dtype)
        return timing, energy_between_j(before_j, after_j), verdict

    def _verify(self, a: jax.Array, b: jax.Array, c: jax.Array, dtype: ProbeDtype) -> Verdict:
        """Check a product made after the timed window (device hot) two ways."""
        m, n = c.shape
        rng = np.random.default_rng(self.config.seed)
        side = self.config.sample_side
        rows = np.sort(rng.choice(m, size=min(side, m), replace=False))
        cols = np.sort(rng.choice(n, size=min(side, n), replace=False))
        block = check_block(*sampled_block(a, b, c, rows, cols), dtype)
        return combine(block, check_freivalds(*freivalds_terms(a, b, c, dtype, self.config.seed)))

    def _peak(self, device: jax.Device, dtype: ProbeDtype) -> Peak:
        if backend_of(device) != "cpu":
            spec = peak_spec(accelerator_type_of(device.device_kind), dtype.name)
            return Peak(None, None) if spec is None else Peak(spec.peak_tflops, spec.source)
        if dtype.storage != "float32" or not self.config.estimate_cpu_peak:
            return Peak(None, None)
        if self._cpu_peak is None:
            tflops = numpy_peak_tflops(self.config.shapes, self.clock, self.config.policy)
            self._cpu_peak = Peak(tflops, cpu_peak_source(tflops, len(self.config.shapes)))
        return self._cpu_peak

    def _result(
        self,
        started: datetime,
        device: jax.Device,
        dtype: ProbeDtype,
        shape: Shape,
        timing: Timing | None,
        energy_j: float | None,
        verdict: Verdict,
    ) -> ProbeResult:
        cfg = self.config
        peak = self._peak(device, dtype) if verdict.ok else Peak(None, None)
        speed = (
            _speeds(shape, timing, energy_j, peak.tflops)
            if verdict.ok and timing
            else dict.fromkeys(_SPEED_FIELDS)
        )
        return ProbeResult(
            result_id=result_id(cfg.node, started, cfg.device_index, dtype.name, *shape),
            measured_at=started,
            node=cfg.node,
            device_index=cfg.device_index,
            device_kind=device.device_kind,
            accelerator_type=accelerator_type_of(device.device_kind),
            backend=backend_of(device),
            dtype=dtype.name,
            m=shape.m,
            n=shape.n,
            k=shape.k,
            iterations=timing.iterations if timing else None,
            peak_tflops_spec=peak.tflops,
            peak_source=peak.source,
            window_s=timing.window_s if timing else None,
            energy_j=energy_j if verdict.ok else None,
            verified=verdict.ok,
            verify_error_ratio=verdict.error_ratio,
            failure=verdict.reason,
            jax_version=jax.__version__,
            probe_version=PROBE_VERSION,
            **speed,
        )


_SPEED_FIELDS = ("achieved_tflops", "median_tflops", "spread_pct", "efficiency", "tflops_per_w")


def _speeds(
    shape: Shape, timing: Timing, energy_j: float | None, peak_tflops: float | None
) -> dict[str, float | None]:
    """The speed columns of a verified result."""
    achieved = shape.flops / timing.best_s / 1e12
    per_w = None if not energy_j else shape.flops * timing.iterations / energy_j / 1e12
    return {
        "achieved_tflops": achieved,
        "median_tflops": shape.flops / timing.median_s / 1e12,
        "spread_pct": timing.spread_pct,
        "efficiency": None if not peak_tflops else achieved / peak_tflops,
        "tflops_per_w": per_w,
    }


def run_sweep(
    config: SweepConfig, progress: Progress | None = None, **injected: object
) -> list[ProbeResult]:
    """Run a sweep with real clocks and kernels (keyword overrides go to `Sweep`)."""
    return Sweep(config, progress=progress, **injected).run()  # type: ignore[arg-type]
