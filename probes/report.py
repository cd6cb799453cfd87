"""Human-readable progress lines and the end-of-sweep summary table. No JAX here."""

from __future__ import annotations

from collections.abc import Sequence

from flopledger.probes.results import ProbeResult


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def progress_line(index: int, total: int, r: ProbeResult) -> str:
    """'probe [3/12] fp32 2048x2048x2048: best 0.1823 TFLOP/s ...' for one finished shape."""
    head = f"probe [{index}/{total}] {r.dtype} {r.m}x{r.n}x{r.k}:"
    if not r.verified:
        return f"{head} FAILED ({r.failure})"
    return (
        f"{head} best {_fmt(r.achieved_tflops, '.4f')} TFLOP/s, median {_fmt(r.median_tflops, '.4f')}, "
        f"spread {_fmt(r.spread_pct, '.1f')}%, {r.iterations} iterations, verified"
    )


def summary_lines(results: Sequence[ProbeResult]) -> list[str]:
    """One row per dtype: best verified TFLOP/s, its shape, the peak it is measured against."""
    header = f"{'dtype':<6} {'best TFLOP/s':>13} {'shape':>19} {'peak TFLOP/s':>13} {'efficiency':>10} {'TFLOP/s/W':>10} {'verified':>9}"
    lines = [
        f"device: {results[0].device_kind} ({results[0].backend}) on {results[0].node}"
        if results
        else "no results",
        header,
    ]
    for dtype in dict.fromkeys(r.dtype for r in results):
        rows = [r for r in results if r.dtype == dtype]
        ok = [r for r in rows if r.achieved_tflops is not None]
        best = max(ok, key=lambda r: r.achieved_tflops or 0.0) if ok else None
        shape = f"{best.m}x{best.n}x{best.k}" if best else "-"
        peak = best.peak_tflops_spec if best else None
        eff = None if best is None or best.efficiency is None else 100.0 * best.efficiency
        lines.append(
            f"{dtype:<6} {_fmt(best.achieved_tflops if best else None, '.4f'):>13} {shape:>19} "
            f"{_fmt(peak, '.4f'):>13} {_fmt(eff, '.1f') + ('%' if eff is not None else ''):>10} "
            f"{_fmt(best.tflops_per_w if best else None, '.3f'):>10} {sum(r.verified for r in rows)}/{len(rows):<7}"
        )
    sources = dict.fromkeys(r.peak_source for r in results if r.peak_source)
    lines.extend(f"peak source: {s}" for s in sources)
    return lines
