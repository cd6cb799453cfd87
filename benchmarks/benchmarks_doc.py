"""docs/benchmarks.md and docs/img/benchmarks.png from the JSON results of fleet_month.py
(and of history.py, given among them: a section of their own).

    .venv/bin/python benchmarks/benchmarks_doc.py benchmarks/results/fleet_month-*-{before,final}-*.json
    .venv/bin/python benchmarks/benchmarks_doc.py benchmarks/results/fleet_month-*-final-*.json \
        benchmarks/results/history-*.json

Results of the same preset and label are merged in file order (a later file's stages replace
an earlier one's: `fleet_month.py --reuse --stages floor` re-measures one stage). The analysis
written by hand (what bounds each missed goal, what would reach it) is
benchmarks/results/fleet_month_notes.md, copied in verbatim. The chart is drawn as SVG and
photographed by headless Chromium (/usr/bin/chromium, as the browser tests use), so no
plotting library is needed.

history.py's sittings (issue 35: the full build and the daily increment at 30, 90 and 365 days
of history) are never merged: each is a table of its histories and its goals, after the notes.
The chart stays fleet_month's.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fleet_month import ratios  # noqa: E402
from history import summary_lines  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "benchmarks.md"
PNG = REPO / "docs" / "img" / "benchmarks.png"
NOTES = REPO / "benchmarks" / "results" / "fleet_month_notes.md"
HISTORY_NOTES = REPO / "benchmarks" / "results" / "history_notes.md"  # by hand, after the tables
CHROMIUM = Path("/usr/bin/chromium")

# goal key -> (what, limit, "max": at most the limit / "min": at least the limit, unit)
GOALS = {
    "run_over_floor": ("month end to end / floor", 3.0, "max", "x"),
    "peer_over_run": ("pandas peer / flopledger run", 10.0, "min", "x"),
    "billing_rows_per_s": ("billing ingest, rows read / s", 100_000.0, "min", "rows/s"),
    "peak_gib": ("peak memory of the run", 4.0, "max", "GiB"),
    "increment_over_run": ("daily increment / window run", 1 / 20, "max", "x"),
}


def load(paths: list[Path]) -> list[dict]:
    merged: dict[tuple[str, str], dict] = {}
    for path in paths:
        result = json.loads(path.read_text())
        if result.get("benchmark") == "history":  # history.py's sittings stand alone
            merged[("history", path.name)] = result | {"files": [path.name]}
            continue
        key = (result["preset"], result.get("label", ""))
        if key in merged:
            merged[key]["stages"] |= result["stages"]
            merged[key]["files"].append(path.name)
        else:
            merged[key] = result | {"files": [path.name]}
    return list(merged.values())


def _fmt(value: float | None, unit: str = "") -> str:
    if value is None:
        return "-"
    if unit == "rows/s":
        return f"{value:,.0f}"
    return f"{value:,.3f}" if value < 0.1 else f"{value:,.2f}"


def _met(key: str, value: float | None) -> str:
    if value is None:
        return "not measured"
    _, limit, kind, _ = GOALS[key]
    ok = value <= limit if kind == "max" else value >= limit
    return "met" if ok else "missed"


def _name(result: dict) -> str:
    label = f" ({result['label']})" if result.get("label") else ""
    return f"{result['preset']}{label}"


def _size(result: dict) -> str:
    s = result["size"]
    knobs = f", job density {s['job_density']:g}" if s.get("job_density", 1.0) != 1.0 else ""
    knobs += ", billing detail full" if s.get("billing_detail") == "full" else ""
    return (
        f"{s['gpus']:,} GPUs, {s['tpu_chips']:,} TPU chips, {s['days']} days, "
        f"telemetry {'on' if s['telemetry'] else 'off'}{knobs}"
    )


def _peer_stopped(result: dict) -> bool:
    """The peer was stopped at --peer-timeout: its seconds (and its ratio) are lower bounds."""
    return bool(result["stages"].get("peer", {}).get("timed_out"))


def goals_table(results: list[dict]) -> list[str]:
    lines = ["| goal | target | " + " | ".join(_name(r) for r in results) + " |"]
    lines.append("|---|---|" + "---:|" * len(results))
    measured = [ratios(r) for r in results]
    for key, (what, limit, kind, unit) in GOALS.items():
        target = f"{'<=' if kind == 'max' else '>='} {_fmt(limit, unit)} {unit}"
        cells = [
            (">= " if key == "peer_over_run" and _peer_stopped(r) else "")
            + f"{_fmt(m[key], unit)} ({_met(key, m[key])})"
            for r, m in zip(results, measured, strict=True)
        ]
        lines.append(f"| {what} | {target} | " + " | ".join(cells) + " |")
    return lines


def stage_table(result: dict) -> list[str]:
    st = result["stages"]
    sim = st.get("simulate", {})
    table = st.get("run", {}).get("table", {})
    telemetry = sum(table.get(t, {}).get("read", 0) for t in ("gpu_samples", "tpu_samples"))
    billing = table.get("billing_line_items", {}).get("read", 0)
    lines = [
        f"**{_name(result)}**: {_size(result)}; {sim.get('runs', 0):,} runs and "
        f"{sim.get('billing_rows', 0):,} billing rows simulated over {sim.get('days_simulated', '?')} "
        f"days (the last is the increment's); commit {result.get('commit', '?')}; "
        f"{result.get('machine', '')}; {result.get('started', '')}.",
        "",
        "| stage | s | peak MiB | rows read | rows/s |",
        "|---|---:|---:|---:|---:|",
    ]
    rows_of = {
        "simulate": sim.get("gpu_rows", 0) + sim.get("tpu_points", 0) + sim.get("billing_rows", 0),
        "run": billing + telemetry,
        "floor": sum(p["rows"] for p in st.get("floor", {}).get("parts", [])),
        "increment": sum(
            v.get("read", 0) for v in st.get("increment", {}).get("table", {}).values()
        ),
    }
    for name in ("simulate", "run", "floor", "peer", "increment"):
        stage = st.get(name)
        if not stage:
            continue
        if stage.get("timed_out"):
            lines.append(
                f"| {name} | >= {stage['s']:,.1f} (stopped) | {stage['peak_kib'] / 1024:,.0f} | | |"
            )
            continue
        if "s" not in stage:
            lines.append(f"| {name} | {stage.get('failed', 'failed')} | | | |")
            continue
        rows = rows_of.get(name, 0)
        rate = f"{rows / stage['s']:,.0f}" if rows and stage["s"] else ""
        lines.append(
            f"| {name} | {stage['s']:,.1f} | {stage['peak_kib'] / 1024:,.0f} | {rows:,} | {rate} |"
            if rows
            else f"| {name} | {stage['s']:,.1f} | {stage['peak_kib'] / 1024:,.0f} | | |"
        )
    run = st.get("run", {})
    if run.get("steps"):
        slow = sorted(run["steps"].items(), key=lambda kv: -kv[1])[:8]
        phases = run.get("phases", [])
        lines += [
            "",
            f"Slowest steps of the run (phases: {', '.join(f'{p:.1f} s' for p in phases)}):",
            "",
        ]
        lines += ["| step | s | rows read | rows/s |", "|---|---:|---:|---:|"]
        for step, secs in slow:
            read = table.get(step, {}).get("read")
            rate = f"{read / secs:,.0f}" if read and secs else ""
            shown = f"{read:,}" if read else ""
            lines.append(f"| {step} | {secs:.1f} | {shown} | {rate} |")
    if st.get("floor", {}).get("parts"):
        parts = ", ".join(
            f"{p['input']} {p['s']:.1f} s ({p['rows']:,} rows)"
            for p in st["floor"]["parts"]
            if p["s"] >= 0.05
        )
        lines += ["", f"Floor by input: {parts}."]
    check = st.get("peer", {}).get("check")
    if check:
        lines += [
            "",
            f"Peer against cost_per_run: {check['runs_peer']:,} runs (warehouse "
            f"{check['runs_house']:,}), {check['runs_differing']} differing, largest "
            f"difference {check['max_abs_diff_usd']} USD.",
        ]
    return lines


def chart_svg(results: list[dict]) -> str:
    """Each goal as measured / goal (log scale; left of 1 = goal met), one bar per result."""
    colours = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]
    width, left, bar, gap = 900, 260, 16, 14
    lo, hi = math.log10(0.01), math.log10(100)
    scale = (width - left - 40) / (hi - lo)
    x = lambda v: left + (math.log10(min(max(v, 10**lo), 10**hi)) - lo) * scale  # noqa: E731
    rows = []
    y = 50
    for key, (what, limit, kind, _) in GOALS.items():
        rows.append(f'<text x="{left - 10}" y="{y + 12}" text-anchor="end">{what}</text>')
        for i, result in enumerate(results):
            value = ratios(result)[key]
            if value is None:
                continue
            factor = value / limit if kind == "max" else limit / value
            x0, x1 = x(1), x(factor)
            rows.append(
                f'<rect x="{min(x0, x1):.1f}" y="{y}" width="{abs(x1 - x0):.1f}" height="{bar - 2}" '
                f'fill="{colours[i % len(colours)]}"/>'
                f'<text x="{max(x0, x1) + 4:.1f}" y="{y + 11}" font-size="11">{factor:.2f}</text>'
            )
            y += bar
        y += gap
    ticks = "".join(
        f'<line x1="{x(t):.1f}" y1="40" x2="{x(t):.1f}" y2="{y}" stroke="#ddd"/>'
        f'<text x="{x(t):.1f}" y="{y + 14}" text-anchor="middle" font-size="11">{t:g}</text>'
        for t in (0.01, 0.1, 1, 10, 100)
    )
    per_row = max(1, (width - left) // 200)  # the legend wraps: every sitting named
    legend = "".join(
        f'<rect x="{left + 200 * (i % per_row)}" y="{y + 26 + 20 * (i // per_row)}" width="12" '
        f'height="12" fill="{colours[i % len(colours)]}"/>'
        f'<text x="{left + 200 * (i % per_row) + 16}" y="{y + 37 + 20 * (i // per_row)}" '
        f'font-size="12">{_name(r)}</text>'
        for i, r in enumerate(results)
    )
    height = y + 50 + 20 * ((len(results) - 1) // per_row)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="13"><rect width="100%" height="100%" fill="white"/>'
        f'<text x="{left}" y="24" font-size="15">Measured / goal (log scale): left of 1 the goal is met, '
        f"right of it missed by that factor</text>{ticks}"
        f'<line x1="{x(1):.1f}" y1="40" x2="{x(1):.1f}" y2="{y}" stroke="black"/>'
        + "".join(rows)
        + legend
        + "</svg>"
    )


def write_png(svg: str, path: Path) -> bool:
    """The SVG photographed by headless Chromium; False when there is no Chromium."""
    if not CHROMIUM.exists():
        return False
    from playwright.sync_api import sync_playwright

    width = int(svg.split('width="')[1].split('"')[0])
    height = int(svg.split('height="')[1].split('"')[0])
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": width, "height": height})
        page.set_content(f"<html><body style='margin:0'>{svg}</body></html>")
        page.screenshot(path=str(path))
        browser.close()
    return True


def _results_glob(results: list[dict]) -> str:
    """The shell pattern naming the sittings this document compares, by their labels."""
    labels = list(dict.fromkeys(r["label"] for r in results))
    label = labels[0] if len(labels) == 1 else "{" + ",".join(labels) + "}"
    return f"benchmarks/results/fleet_month-*-{label}-*.json"


def history_section(histories: list[dict]) -> list[str]:
    """history.py's sittings: per history the full build and the daily increment, the goals."""
    lines = [
        "## The daily run as history grows",
        "",
        "From `benchmarks/history.py` (issue 35): for each history of N days, the same fleet",
        "simulated over N+2 days ending yesterday, built whole (`flopledger run --full --to <N>`),",
        "then day N+1 added (`flopledger run --from <N+1> --to <N+1>`, the first run after a full",
        "build, which also brings the snapshot's other file up to it), the hourly telemetry run",
        "of day N+2, and day N+2 added: the increment measured, the steady daily run. Each is a",
        "process whose seconds and peak memory are its own. The increment's phases are",
        "`flopledger run`'s own (listing the inputs, the ingest run, the marts run); the rest is",
        "the process starting (imports, the definitions) and printing its report.",
        "",
    ]
    for result in histories:
        lines += summary_lines(result, heading="###") + [""]
    if histories and HISTORY_NOTES.exists():
        lines += HISTORY_NOTES.read_text().rstrip().splitlines() + [""]
    return lines


def document(results: list[dict], histories: list[dict] | None = None) -> str:
    histories = histories or []
    commands = sorted({r["command"] for r in results + histories})
    named = [f"benchmarks/results/{f}" for r in histories for f in r["files"]]
    lines = [
        "# Benchmarks: a month of a big fleet against a floor and a peer",
        "",
        "Written by `benchmarks/benchmarks_doc.py` from the JSON results of",
        "`benchmarks/fleet_month.py` in `benchmarks/results/` (issue 15). Run:",
        "",
        "```",
        *[f".venv/bin/python {c}" for c in commands],
        f".venv/bin/python benchmarks/benchmarks_doc.py {_results_glob(results)}"
        + "".join(f" {n}" for n in named),
        "```",
        "",
        "Each preset simulates its window plus one day, runs `flopledger run --to <last day>`, then",
        "in the same sitting the floor (`benchmarks/floor.py`: DuckDB reading every input file",
        "once, every column, telemetry grouped per resource-hour), the pandas peer",
        "(`benchmarks/pandas_peer.py`: the allocation rule over the same files, checked run by run",
        "against `cost_per_run`) and the daily increment (`flopledger run --from <N-1> --to",
        "<N+1>`: the three partitions the daily billing schedule runs, with the marts). Peak memory",
        "is the largest of the process tree's VmHWM and of its summed resident memory, sampled.",
        "The machine has 2 cores shared with six other engineers' work: seconds are loaded, the",
        "ratios of one sitting less so.",
        "",
        "## Goals",
        "",
        *goals_table(results),
        "",
        "![Measured against each goal](img/benchmarks.png)",
        "",
        "## Stages",
        "",
    ]
    for result in results:
        lines += stage_table(result) + [""]
    if NOTES.exists():
        lines += [NOTES.read_text().rstrip(), ""]
    if histories:
        lines += history_section(histories)
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+")
    args = parser.parse_args()
    loaded = load(sorted(args.results, key=lambda p: p.name[-18:]))
    results = [r for r in loaded if r.get("benchmark") != "history"]
    histories = [r for r in loaded if r.get("benchmark") == "history"]
    if not results:
        parser.error("give fleet_month.py's results too: the document is built around them")
    DOC.write_text(document(results, histories))
    drawn = write_png(chart_svg(results), PNG)
    print(f"wrote {DOC.relative_to(REPO)}" + (f" and {PNG.relative_to(REPO)}" if drawn else ""))


if __name__ == "__main__":
    main()
