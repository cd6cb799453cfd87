"""A month of a large fleet, end to end: time and peak memory per stage.

    .venv/bin/python benchmarks/fleet_month.py --gpus 1024 --tpu-chips 32 --days 30 [--no-telemetry]

Stages, each in its own process so that peak memory is its own: `flopledger simulate`, then
`flopledger run` (whose ingest and marts phases it reports itself). Peak memory is the
process's VmHWM from /proc. Results are printed as a Markdown table with ratios (seconds per
simulated GPU-day, bytes of peak memory per GPU), so runs of different sizes compare.
"""

import argparse
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FLOPLEDGER = str(Path(sys.executable).parent / "flopledger")


def _peak_kib(pid: int, stop: threading.Event, peak: list[int]) -> None:
    while not stop.is_set():
        try:
            text = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            return
        match = re.search(r"VmHWM:\s+(\d+) kB", text)
        if match:
            peak[0] = max(peak[0], int(match.group(1)))
        time.sleep(0.2)


def run_stage(args: list[str]) -> tuple[float, int, str]:
    """Wall seconds, peak RSS in KiB and stderr of one command."""
    start = time.monotonic()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stop, peak = threading.Event(), [0]
    watcher = threading.Thread(target=_peak_kib, args=(proc.pid, stop, peak), daemon=True)
    watcher.start()
    out, err = proc.communicate()
    stop.set()
    if proc.returncode not in (0,):
        sys.stderr.write(out + err)
        raise SystemExit(f"{args[1]} failed with exit code {proc.returncode}")
    return time.monotonic() - start, peak[0], err


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", type=int, default=1024)
    parser.add_argument("--tpu-chips", type=int, default=32)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--no-telemetry", action="store_true")
    parser.add_argument(
        "--out", type=Path, default=None, help="keep the fleet here (default: a temp dir)"
    )
    parser.add_argument(
        "--reuse", action="store_true", help="the fleet in --out is already simulated"
    )
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="fleet-month-"))
    sim = [
        FLOPLEDGER,
        "simulate",
        "--out",
        str(out),
        "--gpus",
        str(args.gpus),
        "--tpu-chips",
        str(args.tpu_chips),
        "--days",
        str(args.days),
    ] + (["--no-telemetry"] if args.no_telemetry else [])
    rows = []
    if not args.reuse:
        seconds, peak, _ = run_stage(sim)
        rows.append(("simulate", seconds, peak, ""))
    seconds, peak, err = run_stage([FLOPLEDGER, "run", "--config", str(out / "flopledger.yaml")])
    phases = re.findall(r"done in ([\d.]+) s", err)
    detail = f"ingest {phases[0]} s, marts {phases[1]} s" if len(phases) == 2 else ""
    rows.append(("flopledger run", seconds, peak, detail))
    gpu_days = max(args.gpus * args.days, 1)
    print(
        f"\n{args.gpus} GPUs, {args.tpu_chips} TPU chips, {args.days} days, "
        f"telemetry {'off' if args.no_telemetry else 'on'}; fleet in {out}\n"
    )
    print("| stage | wall s | s per 1,000 GPU-days | peak RSS MiB | peak KiB per GPU | phases |")
    print("|---|---:|---:|---:|---:|---|")
    for name, secs, kib, extra in rows:
        print(
            f"| {name} | {secs:.1f} | {secs / gpu_days * 1000:.2f} | {kib / 1024:.0f} | "
            f"{kib / max(args.gpus, 1):.0f} | {extra} |"
        )
    steps = sorted(
        ((float(t), step) for step, t in re.findall(r"ok\s+(\S+) \(([\d.]+) s\)", err)),
        reverse=True,
    )
    print("\nslowest steps of `flopledger run` (seconds):\n")
    print("| step | s |\n|---|---:|")
    for secs, step in steps[:10]:
        print(f"| {step} | {secs:.1f} |")


if __name__ == "__main__":
    main()
