"""The daily run as history grows (issue 35): a full build and a day's increment per history.

The same fleet at 30, 90 and 365 days of history, in one sitting:

    .venv/bin/python benchmarks/history.py                          # 64 GPUs, 16 TPU chips; 30, 90, 365 days
    .venv/bin/python benchmarks/history.py --histories 30,90        # a shorter sitting
    .venv/bin/python benchmarks/history.py --no-telemetry           # billing, jobs and the marts only
    .venv/bin/python benchmarks/history.py --gpus 8 --tpu-chips 0 --histories 3,6   # a quick check

For each history of N days, each stage a process of its own whose seconds and peak memory
(fleet_month.py's run_stage: the largest VmHWM of its process tree, and the largest sum of its
processes' resident memory, sampled) are its own:

1. `flopledger simulate --days N+2 --start <yesterday - N - 1>`: day N+2 is yesterday, so
   every day lies before the runs' clock as a real history's does (a day past today and
   `limits:` would be quarantined, not built). The simulator writes the fleet's flopledger.yaml
   with `history_start:` its first day, so Dagster's partitions start where the history does;
2. the full build: `flopledger run --full --to <day N>` (without `--full`, recorded as
   `"full_flag": false`, where this checkout's `flopledger run --help` lists no such flag);
3. day N+1's run, `flopledger run --from <day N+1> --to <day N+1>`: the first after the full
   build, which also brings the snapshot's other file up to the full build (the file the full
   build published is one of two; warehouse/duckdb_snapshot.py), once; recorded, not judged;
4. the hourly telemetry runs, before day N+2's increment, with the whole of the day's samples at
   once, more than one tick: first a tick between marts ticks, `flopledger run --telemetry
   --samples-only --from <day N+2> --to <day N+2>` (the samples only), then a marts tick,
   `flopledger run --telemetry` over the same day (the samples, then only the marts they feed).
   The hourly figure is the mean of the N ticks of `schedules.telemetry_marts_every_hours`
   (N - 1 samples-only, one marts tick); where the checkout has no --samples-only, every tick
   is a marts tick. Recorded as skipped where `flopledger run --help` offers no telemetry run;
5. the daily increment measured: `flopledger run --from <day N+2> --to <day N+2>`, the steady
   daily run (its samples then load as unchanged).

What the default fleet writes (measured at 31 days: 528 MB in 23 s, 309 MiB peak): ~17 MB a
simulated day, three quarters of it TPU Monitoring pages and a fifth NVML spool files, so 31 days
~0.5 GB, 91 days ~1.5 GB and 366 days ~6.2 GB (~4.5 minutes to simulate on 2 cores), before the
warehouse each builds; with `--no-telemetry` ~0.9 MB a day (28 MB at 31 days, 6 s). One fleet is
on disk at a time: each is removed once measured, unless --out or --keep.

The issue's goals, printed beside the figures with pass or fail: the increment at the longest
history <= 1/50 of that history's full build; the increment at the longest history / at the
shortest <= 1.3; an hourly telemetry run <= 1/200 of the full build; the increment's peak memory
< 2 GiB (the largest over the histories).

Progress lines go to stderr while it runs. The results are written as JSON, rewritten after each
history (a failed or stopped sitting keeps what it measured), and a Markdown summary of the same
name under benchmarks/results/; `benchmarks/benchmarks_doc.py` gives them a section of
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
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fleet_month import (  # noqa: E402
    FLOPLEDGER,
    REPO,
    RESULTS,
    _commit,
    _run_summary,
    _say,
    run_stage,
)

# goal key -> (what, limit, comparison, unit); "{long}" and "{short}" are the histories' days.
GOALS = {
    "increment_over_full": ("daily increment / full build, at {long} days", 1 / 50, "<=", "x"),
    "increment_growth": ("daily increment at {long} days / at {short} days", 1.3, "<=", "x"),
    "hourly_over_full": (
        "hourly telemetry run (the mean tick) / full build, at {long} days",
        1 / 200,
        "<=",
        "x",
    ),
    "increment_peak_gib": ("peak memory of the daily increment, largest", 2.0, "<", "GiB"),
}
SIMULATED = re.compile(
    r"wrote .*?: ([\d,]+) runs, ([\d,]+) billing rows in ([\d,]+) files, "
    r"([\d,]+) GPU spool rows, ([\d,]+) TPU points"
)


def _run_help() -> str:
    """`flopledger run --help` of this checkout: which flags the measured commit has."""
    env = os.environ | {"PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [*FLOPLEDGER, "run", "--help"], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout


def hourly_option(run_help: str) -> str | None:
    """An option of `flopledger run` for an hourly (telemetry-only) run, if it has one."""
    found = re.search(r"--[\w-]*(?:hour|telemetry)[\w-]*", run_help)
    return found.group(0) if found else None


def marts_every_hours(config: Path) -> int:
    """The fleet's `schedules.telemetry_marts_every_hours` as the measured checkout reads it
    (1, a marts run after every tick, where it has no such setting)."""
    sys.path.insert(0, str(REPO))
    from flopledger.settings import load_config

    schedules = load_config(config, warn=False).schedules
    return int(getattr(schedules, "telemetry_marts_every_hours", 1))


def mean_tick(hourly: dict) -> float | None:
    """An hour's telemetry run on average: of N ticks, N - 1 load the samples only and one
    builds the marts too (only the marts tick, where no samples-only tick was measured)."""
    marts = hourly.get("s")
    if marts is None:
        return None
    samples = hourly.get("samples_only", {}).get("s")
    every = hourly.get("every_hours", 1)
    if samples is None or every <= 1:
        return marts
    return ((every - 1) * samples + marts) / every


def _bytes(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def first_day(days: int, today: date) -> date:
    """The first day of a history of `days` days whose two increments, days N+1 and N+2, end
    yesterday: every simulated day then lies before the run's clock, as a real history does
    (a day after today + `limits:` would be quarantined, not built)."""
    return today - timedelta(days=days + 2)


def _day(start: date, n: int) -> date:
    """The n-th simulated day, 1 being the first (history_start)."""
    return start + timedelta(days=n - 1)


def _stage(name: str, args: list[str], log: Path, fleet: Path | None = None) -> dict:
    """One stage by fleet_month's run_stage, with the machine's load as it began; a run's
    steps and read table (fleet_month's _run_summary) when `fleet` is given. A failed stage is
    a result too: {"failed": why}."""
    load = os.getloadavg()[0]
    try:
        stage = run_stage(name, args, log)
    except SystemExit as exc:
        _say(f"{name} failed: {exc}")
        return {"failed": str(exc), "load": load}
    stage["load"] = load
    return _run_summary(stage, fleet) if fleet is not None else stage


def measure(
    days: int,
    fleet: Path,
    logs: Path,
    size: dict,
    full_flag: bool,
    hourly: str | None,
    samples_only: bool = False,
) -> dict:
    """Simulate `days` + 2 days into `fleet`, build the history whole, then add its next two
    days, one run each: the second is the steady daily run measured (the first also catches
    the snapshot's other file up with the full build, once)."""
    start = first_day(days, date.today())
    entry: dict = {
        "days": days,
        "days_simulated": days + 2,
        "history_start": str(start),
        "full_to": str(_day(start, days)),
        "first_increment_day": str(_day(start, days + 1)),
        "increment_day": str(_day(start, days + 2)),
    }
    sim = [*FLOPLEDGER, "simulate", "--out", str(fleet), "--days", str(days + 2)]
    sim += ["--gpus", str(size["gpus"]), "--tpu-chips", str(size["tpu_chips"])]
    sim += ["--start", str(start)] + ([] if size["telemetry"] else ["--no-telemetry"])
    stage = _stage(f"simulate {days + 2} d", sim, logs / f"{days}d-simulate.log")
    entry["simulate"] = stage
    if "failed" in stage:
        return entry
    counts = SIMULATED.search(stage.pop("output"))
    if counts:
        keys = ("runs", "billing_rows", "billing_files", "gpu_rows", "tpu_points")
        stage |= {k: int(c.replace(",", "")) for k, c in zip(keys, counts.groups(), strict=True)}
    stage["inputs_bytes"] = _bytes(fleet)
    config = str(fleet / "flopledger.yaml")
    full = [*FLOPLEDGER, "run", "--config", config, *(["--full"] if full_flag else [])]
    full += ["--to", entry["full_to"]]
    entry["full"] = _stage(f"full {days} d", full, logs / f"{days}d-full.log", fleet)
    if "failed" in entry["full"]:
        return entry
    entry["full"]["warehouse_bytes"] = _bytes(fleet / "warehouse.duckdb")
    first = entry["first_increment_day"]
    once = [*FLOPLEDGER, "run", "--config", config, "--from", first, "--to", first]
    entry["first_increment"] = _stage(
        f"first increment {days} d", once, logs / f"{days}d-first-increment.log", fleet
    )
    if "failed" in entry["first_increment"]:
        return entry
    day = entry["increment_day"]
    if hourly:  # the day's samples arrive first, as the hourly ticks load them
        tick = [*FLOPLEDGER, "run", "--config", config, hourly, "--from", day, "--to", day]
        between = None
        if samples_only:  # a tick between marts ticks first: it loads the samples
            log = logs / f"{days}d-hourly-samples-only.log"
            between = _stage(f"hourly samples-only {days} d", [*tick, "--samples-only"], log, fleet)
        entry["hourly"] = _stage(f"hourly {days} d", tick, logs / f"{days}d-hourly.log", fleet)
        entry["hourly"]["every_hours"] = marts_every_hours(Path(config)) if samples_only else 1
        if between is not None:
            entry["hourly"]["samples_only"] = between
    else:
        entry["hourly"] = {
            "skipped": "flopledger run offers no hourly telemetry run (its --help lists none)"
        }
    inc = [*FLOPLEDGER, "run", "--config", config, "--from", day, "--to", day]
    entry["increment"] = _stage(f"increment {days} d", inc, logs / f"{days}d-increment.log", fleet)
    if "failed" not in entry["increment"]:
        entry["increment"]["warehouse_bytes"] = _bytes(fleet / "warehouse.duckdb")
    return entry


def _measured(result: dict) -> list[dict]:
    """The histories whose full build and increment both ran, shortest first."""
    done = [
        h for h in result["histories"] if "s" in h.get("full", {}) and "s" in h.get("increment", {})
    ]
    return sorted(done, key=lambda h: h["days"])


def ratios(result: dict) -> dict[str, float | None]:
    """The issue's goals as measured (None where not measured)."""
    done = _measured(result)
    if not done:
        return dict.fromkeys(GOALS)
    short, long = done[0], done[-1]
    hourly_s = mean_tick(long.get("hourly", {}))
    return {
        "increment_over_full": long["increment"]["s"] / long["full"]["s"],
        "increment_growth": (
            long["increment"]["s"] / short["increment"]["s"] if len(done) > 1 else None
        ),
        "hourly_over_full": hourly_s / long["full"]["s"] if hourly_s else None,
        "increment_peak_gib": max(h["increment"]["peak_kib"] for h in done) / 2**20,
    }


def verdict(key: str, value: float | None) -> str:
    if value is None:
        return "not measured"
    _, limit, comparison, _ = GOALS[key]
    return "pass" if (value <= limit if comparison == "<=" else value < limit) else "fail"


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.4f}" if value < 0.1 else f"{value:,.2f}"


def goal_rows(result: dict) -> list[tuple[str, str, str, str]]:
    """(goal, target, measured, verdict) for each of the issue's goals."""
    done = _measured(result)
    long = done[-1]["days"] if done else "?"
    short = done[0]["days"] if done else "?"
    rows = []
    for key, value in ratios(result).items():
        what, limit, comparison, unit = GOALS[key]
        target = f"{comparison} {_fmt(limit)} {unit}" + (
            f" (1/{1 / limit:.0f})" if limit < 1 else ""
        )
        rows.append((what.format(long=long, short=short), target, _fmt(value), verdict(key, value)))
    return rows


def _mib(kib: int) -> str:
    return f"{kib / 1024:,.0f}"


def _phases(stage: dict) -> str:
    """`inputs / ingest / marts` seconds of a run, and what the process spent outside them."""
    phases = stage.get("phases", [])
    if len(phases) != 3:
        return ""
    return " / ".join(f"{p:.1f}" for p in phases) + f" (+{stage['s'] - sum(phases):.1f})"


def _cells(history: dict) -> list[str]:
    """A history's row of the summary table (its 10 columns)."""
    sim, full, inc = (history.get(k, {}) for k in ("simulate", "full", "increment"))
    cells = [
        f"{history['days']} days",
        f"{sim['runs']:,}" if "runs" in sim else "",
        f"{sim['inputs_bytes'] / 2**20:,.0f}" if "inputs_bytes" in sim else "",
    ]
    if "s" in full and "s" in inc:
        return cells + [
            f"{full['s']:,.1f}",
            _mib(full["peak_kib"]),
            f"{inc['s']:,.1f}",
            _mib(inc["peak_kib"]),
            _fmt(inc["s"] / full["s"]),
            f"{len(full.get('steps', {}))} / {len(inc.get('steps', {}))}",
            _phases(inc),
        ]
    failed = [
        k for k, v in (("simulate", sim), ("full", full), ("increment", inc)) if "failed" in v
    ]
    cells += [f"{full['s']:,.1f}", _mib(full["peak_kib"])] if "s" in full else ["", ""]
    return cells + [f"{failed[0]} failed" if failed else "not run"] + [""] * 4


def _tick_text(history: dict) -> str:
    """A history's hourly runs: the marts tick, and the samples-only tick and the mean."""
    hourly = history["hourly"]
    text = (
        f"{history['days']} days: marts tick {hourly['s']:,.1f} s ({_mib(hourly['peak_kib'])} MiB)"
    )
    between = hourly.get("samples_only", {})
    if "s" in between:
        mean = mean_tick(hourly) or 0.0
        text += (
            f", samples-only tick {between['s']:,.1f} s ({_mib(between['peak_kib'])} MiB), "
            f"mean of {hourly['every_hours']} ticks {mean:,.1f} s"
        )
    return text


def _name(result: dict) -> str:
    label = f" ({result['label']})" if result.get("label") else ""
    return f"{result['preset']}{label}"


def summary_lines(result: dict, heading: str = "#") -> list[str]:
    """The sitting in Markdown: its fleet, a row per history, the goals with pass or fail."""
    size = result["size"]
    full = "`flopledger run --full`" if result["full_flag"] else "`flopledger run` (no --full yet)"
    slowest = []
    done = _measured(result)
    if done:
        steps = sorted(done[-1]["increment"].get("steps", {}).items(), key=lambda kv: -kv[1])
        slowest = [f"{step} {s:.1f} s" for step, s in steps[:6]]
    hourly = next(
        (h["hourly"]["skipped"] for h in result["histories"] if "skipped" in h.get("hourly", {})),
        "",
    )
    ticks = [_tick_text(h) for h in result["histories"] if "s" in h.get("hourly", {})]
    lines = [
        f"{heading} History {_name(result)}: {size['gpus']:,} GPUs, {size['tpu_chips']:,} TPU "
        f"chips, telemetry {'on' if size['telemetry'] else 'off'}",
        "",
        f"Commit {result.get('commit', '?')}; {result.get('machine', '')}; "
        f"{result.get('started', '')} to {result.get('finished', '(unfinished)')}. "
        f"Each history's day N+2 is yesterday; the full build is {full} to day N, "
        f"then `flopledger run --from <day> --to <day>` for day N+1 and for day N+2 on the "
        f"warehouse it left; the increment measured is day N+2's, the steady daily run (day "
        f"N+1's also catches the snapshot's other file up with the full build, once).",
        "",
        "| history | runs | inputs MiB | full s | full peak MiB | increment s "
        "| increment peak MiB | increment / full | steps full / increment "
        "| increment inputs / ingest / marts s (+ rest) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        *("| " + " | ".join(_cells(h)) + " |" for h in result["histories"]),
        "",
        "| goal | target | measured | |",
        "|---|---|---:|---|",
        *(f"| {what} | {target} | {value} | {v} |" for what, target, value, v in goal_rows(result)),
    ]
    if hourly:
        lines += ["", f"Hourly telemetry run not measured: {hourly}."]
    if ticks:
        lines += ["", "Hourly telemetry runs (`flopledger run --telemetry [--samples-only]`, day "]
        lines[-1] += "N+2's samples, before the increment): " + "; ".join(ticks) + "."
    firsts = [
        f"{h['days']} days {h['first_increment']['s']:,.1f} s"
        for h in result["histories"]
        if "s" in h.get("first_increment", {})
    ]
    if firsts:
        lines += ["", "Day N+1's run, the first after the full build: " + ", ".join(firsts) + "."]
    if slowest:
        lines += ["", f"Slowest steps of the increment at {done[-1]['days']} days: "]
        lines[-1] += ", ".join(slowest) + "."
    return lines


def _write(result: dict, path: Path) -> None:
    path.write_text(json.dumps(result, indent=1) + "\n")
    path.with_suffix(".md").write_text("\n".join(summary_lines(result)) + "\n")


def _histories(text: str) -> list[int]:
    days = sorted({int(d) for d in text.split(",") if d.strip()})
    if not days or days[0] < 1:
        raise argparse.ArgumentTypeError("histories are days, at least 1: e.g. 30,90,365")
    return days


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", type=int, default=64, help="GPUs (8 per VM; default 64)")
    parser.add_argument("--tpu-chips", type=int, default=16, help="TPU chips (default 16)")
    parser.add_argument(
        "--histories",
        type=_histories,
        default=[30, 90, 365],
        help="days of history, comma-separated (default 30,90,365)",
    )
    parser.add_argument(
        "--no-telemetry",
        action="store_true",
        help="flopledger simulate --no-telemetry: no NVML spool or Monitoring pages (~1/20 the size)",
    )
    parser.add_argument("--out", type=Path, help="folder for the fleets (default: a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep each fleet once measured")
    parser.add_argument("--label", default="", help="a word for the results file (before, after)")
    parser.add_argument(
        "--results", type=Path, default=RESULTS, help="where the JSON and Markdown go"
    )
    args = parser.parse_args()
    if args.gpus < 0 or args.tpu_chips < 0 or args.gpus + args.tpu_chips == 0:
        parser.error("--gpus and --tpu-chips at least 0, and some accelerators")
    size = {
        "gpus": args.gpus,
        "tpu_chips": args.tpu_chips,
        "telemetry": not args.no_telemetry,
        "histories": args.histories,
    }
    name = f"g{args.gpus}-t{args.tpu_chips}" + ("" if size["telemetry"] else "-notelemetry")
    keep = args.keep or args.out is not None
    root = args.out or Path(tempfile.mkdtemp(prefix="history-"))
    logs = root / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    run_help = _run_help()
    full_flag = "--full" in run_help
    hourly = hourly_option(run_help)
    samples_only = "--samples-only" in run_help
    result: dict = {
        "benchmark": "history",
        "preset": name,
        "label": args.label,
        "size": size,
        "full_flag": full_flag,
        "hourly_option": hourly,
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": _commit(),
        "machine": f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f} at start",
        "command": " ".join(["benchmarks/history.py"] + sys.argv[1:]),
        "histories": [],
    }
    args.results.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    path = args.results / f"history-{name}{'-' + args.label if args.label else ''}-{stamp}.json"
    _say(
        f"history {name}: {', '.join(map(str, args.histories))} days; full build "
        f"{'with' if full_flag else 'WITHOUT'} --full; hourly run: {hourly or 'none offered'}; "
        f"fleets under {root}"
    )
    for days in args.histories:
        fleet = root / f"d{days}"
        _say(f"history {days} days: simulating {days + 1} days into {fleet}")
        entry = measure(days, fleet, logs, size, full_flag, hourly, samples_only)
        result["histories"].append(entry)
        full, inc = entry.get("full", {}), entry.get("increment", {})
        if "s" in full and "s" in inc:
            _say(
                f"history {days} days: full {full['s']:.1f} s ({_mib(full['peak_kib'])} MiB), "
                f"increment {inc['s']:.1f} s ({_mib(inc['peak_kib'])} MiB), "
                f"increment / full {_fmt(inc['s'] / full['s'])}"
            )
        _write(result, path)
        if not keep:
            shutil.rmtree(fleet, ignore_errors=True)
    result["finished"] = datetime.now(UTC).isoformat(timespec="seconds")
    _write(result, path)
    for what, target, value, v in goal_rows(result):
        _say(f"goal: {what}: {value} (target {target}): {v}")
    _say(f"results: {path} and {path.with_suffix('.md').name}; logs: {logs}")
    print("\n".join(summary_lines(result)))


if __name__ == "__main__":
    main()
