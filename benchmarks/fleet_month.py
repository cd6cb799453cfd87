"""A month of a large fleet, end to end, against the floor and the pandas peer, in one sitting.

    .venv/bin/python benchmarks/fleet_month.py --preset month          # 1,024 GPUs, 256 TPU chips, 30 days, the issue's sizes
    .venv/bin/python benchmarks/fleet_month.py --preset fleet14        # the re-measured 256 GPU, 32 chip, 14 days
    .venv/bin/python benchmarks/fleet_month.py --preset billing        # 1,024 GPUs, no TPU, 30 days, no telemetry
    .venv/bin/python benchmarks/fleet_month.py --gpus 64 --tpu-chips 8 --days 3   # any size

The `month` preset is the issue's month: 1,024 GPUs and 256 TPU chips at one-minute samples
(~55M telemetry rows), `--job-density 2.2` (~20,000 runs: 19,928 start in the 30 days, 20,578 in
the 31 days simulated) and `--billing-detail full` (~1M billing rows: each VM-hour also bills its
boot and data disks, their snapshots, Local SSD, traffic and external IP: ~733,000 rows more in
the 31 days simulated than standard detail's 272,580 written rows, so ~1.0M rows). Estimated, not
simulated: runs from the schedule alone (`build_schedule` of the month's fleet), rows from the
rows each VM-hour adds, an estimate checked on a short fleet (1,024 GPUs, no TPU, 2 days,
--no-telemetry: 16,985 distinct rows standard, 67,009 full, 67,043 estimated).
`--job-density` and `--billing-detail` apply to any size.

Stages, each a process of its own whose peak memory (the largest VmHWM of its process tree,
and the largest sum of its processes' resident memory, sampled) is its own:

1. `flopledger simulate` of the window plus one day (day N+1 is the daily increment's day);
2. `flopledger run --to <last day of the window>`: the window, with its per-step seconds
   (`ok     billing_line_items (12.3 s)`) and its read / loaded / quarantined table;
3. the floor (benchmarks/floor.py): DuckDB reading every input file once, every column,
   grouping telemetry per resource-hour;
4. the peer (benchmarks/pandas_peer.py): pandas computing every run's cost from the same files,
   checked against the warehouse's cost_per_run;
5. the daily increment: `flopledger run --from <N-1> --to <N+1>`, the partitions the daily
   billing schedule (pipelines/schedules.py, LATE_DAYS) runs the day after day N+1, with marts.

Progress lines go to stderr while it runs; the results are written as JSON (and a Markdown
summary) under benchmarks/results/, which `benchmarks/benchmarks_doc.py` turns into
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results"
# `flopledger` from this checkout (PYTHONPATH below), so that a clean `git worktree` of a
# commit measures that commit, whatever the shared working tree holds.
FLOPLEDGER = [
    sys.executable,
    "-c",
    "import sys; from flopledger.cli.main import main; sys.exit(main())",
]
START = date(2026, 10, 1)  # the simulator's default first day
LATE_DAYS = 3  # pipelines/schedules.py: the daily billing run covers the last three days

PRESETS = {
    "small": {"gpus": 64, "tpu_chips": 8, "days": 3, "telemetry": True},
    "medium": {"gpus": 128, "tpu_chips": 16, "days": 7, "telemetry": True},
    "fleet14": {"gpus": 256, "tpu_chips": 32, "days": 14, "telemetry": True},
    "billing": {"gpus": 1024, "tpu_chips": 0, "days": 30, "telemetry": False},
    "month": {
        "gpus": 1024,
        "tpu_chips": 256,
        "days": 30,
        "telemetry": True,
        "job_density": 2.2,
        "billing_detail": "full",
    },
}
# What a preset leaves out: `flopledger simulate`'s defaults (the fleets measured before the knobs).
KNOBS = {"job_density": 1.0, "billing_detail": "standard"}


def _say(message: str) -> None:
    stamp = datetime.now(UTC).strftime("%H:%M:%S")
    print(f"[{stamp}] {message}", file=sys.stderr, flush=True)


def _tree(pid: int) -> list[int]:
    """pid and its descendants (from /proc/<pid>/task/*/children)."""
    seen, todo = [], [pid]
    while todo:
        p = todo.pop()
        seen.append(p)
        for task in Path(f"/proc/{p}/task").glob("*"):
            try:
                todo += [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                continue
    return seen


def _status_kib(pid: int, field: str) -> int:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    match = re.search(rf"{field}:\s+(\d+) kB", text)
    return int(match.group(1)) if match else 0


class Watch:
    """Samples a process tree: the largest VmHWM of any process, the largest summed VmRSS."""

    def __init__(self, pid: int) -> None:
        self.pid, self.hwm_kib, self.rss_sum_kib = pid, 0, 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while not self.stop.is_set():
            pids = _tree(self.pid)
            self.hwm_kib = max([self.hwm_kib] + [_status_kib(p, "VmHWM") for p in pids])
            self.rss_sum_kib = max(self.rss_sum_kib, sum(_status_kib(p, "VmRSS") for p in pids))
            time.sleep(0.25)

    def done(self) -> int:
        self.stop.set()
        self.thread.join()
        return max(self.hwm_kib, self.rss_sum_kib)


def run_stage(name: str, args: list[str], log: Path, timeout: float | None = None) -> dict:
    """Run one stage, echoing its progress lines; its seconds, peak KiB and output. Past
    `timeout` seconds the stage is stopped and marked `timed_out` (its seconds a lower bound)."""
    shown = ["flopledger", *args[3:]] if args[:3] == FLOPLEDGER else args
    _say(f"{name}: {' '.join(shown)}")
    start = time.monotonic()
    with open(log, "w") as out:
        env = os.environ | {"PYTHONPATH": str(REPO)}
        proc = subprocess.Popen(
            args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
        )
        watch = Watch(proc.pid)
        timer = threading.Timer(timeout, proc.kill) if timeout else None
        if timer:
            timer.start()
        assert proc.stdout is not None
        for line in proc.stdout:
            out.write(line)
            text = line.rstrip()
            if text.startswith(("[", "day ", "floor", "peer", "      ok", "      done", "wrote")):
                _say(f"  {name} | {text.strip()}")
        proc.wait()
    seconds = time.monotonic() - start
    peak = watch.done()
    timed_out = timer is not None and not timer.is_alive() and proc.returncode != 0
    if timer:
        timer.cancel()
    if timed_out:
        _say(f"{name}: stopped after {seconds:.1f} s (--peer-timeout), peak {peak / 1024:,.0f} MiB")
        return {"s": seconds, "peak_kib": peak, "log": str(log), "timed_out": True, "output": ""}
    if proc.returncode != 0:
        raise SystemExit(f"{name} failed with exit code {proc.returncode}; see {log}")
    _say(f"{name}: {seconds:.1f} s, peak {peak / 1024:,.0f} MiB")
    return {"s": seconds, "peak_kib": peak, "log": str(log), "output": log.read_text()}


def _commit() -> str:
    """The commit measured: a `git archive` copy carries it in .commit, a checkout in git."""
    stamp = REPO / ".commit"
    if stamp.exists():
        return stamp.read_text().strip()
    git = ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"]
    dirty = subprocess.run(
        ["git", "-C", str(REPO), "status", "--porcelain", "-uno"], capture_output=True, text=True
    )
    head = subprocess.run(git, capture_output=True, text=True).stdout.strip()
    return head + (" + uncommitted changes" if dirty.stdout.strip() else "")


def _steps(output: str) -> dict[str, float]:
    return {step: float(s) for step, s in re.findall(r"ok\s+(\S+) \(([\d.]+) s\)", output)}


def _read_table(output: str) -> dict[str, dict[str, int]]:
    """The run's `source table  read  loaded  duplicate  quarantined` table."""
    table = {}
    for line in output.splitlines():
        match = re.fullmatch(r"(\w+)((?:\s+[\d,]+){3,5})\s*", line)
        if match:
            # Comma-grouped numbers, also when the report's columns run together (8 digits).
            numbers = [
                int(n.replace(",", "")) for n in re.findall(r"\d{1,3}(?:,\d{3})*", match.group(2))
            ]
            keys = ("read", "loaded", "duplicate", "quarantined", "outside_window")
            table[match.group(1)] = dict(zip(keys, numbers, strict=False))
    return table


def _phases(output: str) -> list[float]:
    return [float(s) for s in re.findall(r"done in ([\d.]+) s", output)]


def _run_summary(stage: dict, fleet: Path) -> dict:
    out = stage.pop("output")
    steps = _steps(out)
    if not steps:  # the step lines went to Dagster's captured compute logs of the newest run
        runs = sorted(
            (fleet / "dagster_home" / "storage").glob("*/compute_logs"), key=os.path.getmtime
        )
        if runs:
            steps = _steps("".join(p.read_text() for p in runs[-1].glob("*.err")))
    stage |= {"steps": steps, "table": _read_table(out), "phases": _phases(out)}
    return stage


def _peer_check(fleet: Path, peer_csv: Path) -> dict:
    """The peer's per-run costs against the warehouse's cost_per_run (the published snapshot)."""
    from decimal import Decimal

    import duckdb

    con = duckdb.connect(str(fleet / "warehouse.snapshot.duckdb"), read_only=True)
    rows = con.execute(
        "SELECT run_id, CAST(effective_cost AS VARCHAR) FROM cost_per_run"
    ).fetchall()
    con.close()
    house = {run: Decimal(cost) for run, cost in rows}
    peer = {}
    for line in peer_csv.read_text().splitlines()[1:]:
        run, cost = line.split(",")
        peer[run] = Decimal(cost)
    diffs = [abs(house.get(r, Decimal(0)) - peer.get(r, Decimal(0))) for r in house.keys() | peer]
    return {
        "runs_house": len(house),
        "runs_peer": len(peer),
        "runs_differing": sum(1 for d in diffs if d != 0),
        "max_abs_diff_usd": str(max(diffs, default=Decimal(0))),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", choices=sorted(PRESETS), default=None)
    parser.add_argument("--gpus", type=int)
    parser.add_argument("--tpu-chips", type=int)
    parser.add_argument("--days", type=int)
    parser.add_argument("--no-telemetry", action="store_true")
    parser.add_argument(
        "--job-density",
        type=float,
        help="flopledger simulate --job-density: X times as many, shorter runs (month: 2.2)",
    )
    parser.add_argument(
        "--billing-detail",
        choices=("standard", "full"),
        help="flopledger simulate --billing-detail (month: full, ~1M rows)",
    )
    parser.add_argument("--out", type=Path, help="fleet folder (default: a temp dir, removed)")
    parser.add_argument("--reuse", action="store_true", help="--out is already simulated")
    parser.add_argument("--no-peer", action="store_true", help="skip the pandas peer")
    parser.add_argument(
        "--peer-timeout", type=float, help="stop the peer after this many seconds (a lower bound)"
    )
    parser.add_argument(
        "--stages",
        default="simulate,run,floor,peer,increment",
        help="comma-separated stages to run (with --reuse: re-measure some of them)",
    )
    parser.add_argument("--no-increment", action="store_true", help="skip the daily increment")
    parser.add_argument("--label", default="", help="a word for the results file (before, after)")
    parser.add_argument("--results", type=Path, default=RESULTS, help="where the JSON goes")
    args = parser.parse_args()
    size = KNOBS | PRESETS[args.preset or "small"]
    if args.preset is None and args.gpus is None:
        parser.error("give --preset or --gpus/--tpu-chips/--days")
    for key in ("gpus", "tpu_chips", "days", "job_density", "billing_detail"):
        if getattr(args, key) is not None:
            size[key] = getattr(args, key)
    if args.no_telemetry:
        size["telemetry"] = False
    if size["days"] < 2 or size["gpus"] < 0 or size["tpu_chips"] < 0:
        parser.error("--days must be at least 2, --gpus and --tpu-chips at least 0")
    name = args.preset or f"g{size['gpus']}-t{size['tpu_chips']}-d{size['days']}"
    keep = args.out is not None
    fleet = args.out or Path(tempfile.mkdtemp(prefix="fleet-month-"))
    fleet.mkdir(parents=True, exist_ok=True)
    logs = fleet.parent / f"{fleet.name}-logs"
    logs.mkdir(exist_ok=True)
    last = START + timedelta(days=size["days"] - 1)
    increment = not args.no_increment
    sim_days = size["days"] + (1 if increment else 0)
    result: dict = {
        "preset": name,
        "label": args.label,
        "size": size,
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": _commit(),
        "machine": f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f} at start",
        "command": " ".join(["benchmarks/fleet_month.py"] + sys.argv[1:]),
        "stages": {},
    }
    stages = result["stages"]
    wanted = set(args.stages.split(","))
    if args.reuse:
        wanted.discard("simulate")
    if "simulate" in wanted:
        sim = [*FLOPLEDGER, "simulate", "--out", str(fleet), "--gpus", str(size["gpus"])]
        sim += ["--tpu-chips", str(size["tpu_chips"]), "--days", str(sim_days)]
        sim += [] if size["telemetry"] else ["--no-telemetry"]
        sim += ["--job-density", str(size["job_density"])] if size["job_density"] != 1.0 else []
        sim += ["--billing-detail", "full"] if size["billing_detail"] == "full" else []
        stage = run_stage("simulate", sim, logs / "simulate.log")
        counts = re.search(
            r"wrote .*?: ([\d,]+) runs, ([\d,]+) billing rows in ([\d,]+) files, ([\d,]+) GPU spool rows, ([\d,]+) TPU points",
            stage.pop("output"),
        )
        if counts:
            runs, billing, files, gpu, tpu = (int(c.replace(",", "")) for c in counts.groups())
            stage |= {"runs": runs, "billing_rows": billing, "billing_files": files}
            stage |= {"gpu_rows": gpu, "tpu_points": tpu, "days_simulated": sim_days}
        stages["simulate"] = stage
    config = str(fleet / "flopledger.yaml")
    if "run" in wanted:
        run = [*FLOPLEDGER, "run", "--config", config, "--to", str(last)]
        stages["run"] = _run_summary(run_stage("run", run, logs / "run.log"), fleet)
    if "floor" in wanted:
        floor = [sys.executable, str(REPO / "benchmarks" / "floor.py"), str(fleet)]
        stages["floor"] = run_stage("floor", floor, logs / "floor.log")
        floor_json = stages["floor"].pop("output")
        stages["floor"]["parts"] = json.loads(floor_json[floor_json.index("{") :])["parts"]
    if "peer" in wanted and not args.no_peer:
        peer_csv = logs / "peer_costs.csv"
        peer = [sys.executable, str(REPO / "benchmarks" / "pandas_peer.py"), str(fleet)]
        peer += ["--to", str(last), "--out", str(peer_csv)]
        try:
            stages["peer"] = run_stage("peer", peer, logs / "peer.log", args.peer_timeout)
            stages["peer"].pop("output")
            if not stages["peer"].get("timed_out"):
                stages["peer"]["check"] = _peer_check(fleet, peer_csv)
                _say(f"peer against cost_per_run: {stages['peer']['check']}")
        except SystemExit as exc:  # the peer running out of memory is a result too
            stages["peer"] = {"failed": str(exc)}
            _say(f"peer failed: {exc}")
    if increment and "increment" in wanted:
        first = last - timedelta(days=LATE_DAYS - 2)
        day = last + timedelta(days=1)
        inc = [*FLOPLEDGER, "run", "--config", config, "--from", str(first), "--to", str(day)]
        stages["increment"] = _run_summary(
            run_stage("increment", inc, logs / "increment.log"), fleet
        )
    result["finished"] = datetime.now(UTC).isoformat(timespec="seconds")
    args.results.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    path = args.results / f"fleet_month-{name}{'-' + args.label if args.label else ''}-{stamp}.json"
    path.write_text(json.dumps(result, indent=1) + "\n")
    _say(f"results: {path}")
    print(summary(result))
    if not keep:
        shutil.rmtree(fleet, ignore_errors=True)


def ratios(result: dict) -> dict[str, float | None]:
    """The issue's goals as ratios (None where a stage did not run)."""
    st = result["stages"]
    run = st.get("run", {})
    run_s = run.get("s")
    billing = run.get("table", {}).get("billing_line_items", {}).get("read", 0)
    billing_s = run.get("steps", {}).get("billing_line_items")
    floor_s = st.get("floor", {}).get("s")
    peer_s = st.get("peer", {}).get("s")
    inc_s = st.get("increment", {}).get("s")
    return {
        "run_over_floor": run_s / floor_s if run_s and floor_s else None,
        "peer_over_run": peer_s / run_s if peer_s and run_s else None,
        "billing_rows_per_s": billing / billing_s if billing_s else None,
        "peak_gib": run["peak_kib"] / 2**20 if run else None,
        "increment_over_run": inc_s / run_s if inc_s and run_s else None,
    }


def summary(result: dict) -> str:
    st, size = result["stages"], result["size"]
    lines = [
        f"\n{result['preset']}: {size['gpus']} GPUs, {size['tpu_chips']} TPU chips, "
        f"{size['days']} days, telemetry {'on' if size['telemetry'] else 'off'}, job density "
        f"{size.get('job_density', 1.0):g}, billing detail {size.get('billing_detail', 'standard')}\n",
        "| stage | s | peak MiB |",
        "|---|---:|---:|",
    ]
    lines += [
        f"| {k} | {v['s']:.1f} | {v['peak_kib'] / 1024:,.0f} |" for k, v in st.items() if "s" in v
    ]
    lines.append("")
    lines += [f"- {k}: {'-' if v is None else f'{v:,.2f}'}" for k, v in ratios(result).items()]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
