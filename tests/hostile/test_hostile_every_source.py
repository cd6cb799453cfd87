"""Issue 36's "done when": a run over a fleet with one bad record per source loads every good
record and quarantines exactly the bad ones.

One small simulated fleet (GKE pods and an AWS FOCUS segment included) is written twice with the
same seed: once as it is, once with one bad record planted in each of its nine inputs (billing,
jobs, NVML spool, Cloud Monitoring, probes, the gateway's logs, a provider's cost pages, the
pods, FOCUS). Both go through `flopledger run`. Every expected number comes from the clean run
and from what was planted, never from the code under test reading the planted input."""

from __future__ import annotations

import copy
import io
import json
import re
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from flopledger.cli.main import main
from flopledger.ingest.registry import SOURCES
from flopledger.simulator import simulate
from tests.conftest import billing_row, run_record, write_ndjson

DAY = "2026-10-01"  # simulate's default start: the fleet's one day


def _fleet(out: Path) -> Path:
    """The small fleet (GKE pods and an AWS FOCUS segment too), the same bytes every time."""
    return simulate(out, gpus=8, tpu_chips=4, days=1, seed=5, gke=True, aws_gpus=8).out_dir


@dataclass(frozen=True)
class Planted:
    """One bad record: the `sources:` key it is planted under, the file (relative to the
    fleet's folder), the quarantine row's source and line, and the words its reason must
    hold; `table` is the raw table whose run report line counts it."""

    config_key: str
    file: str
    source: str
    line: int | None
    words: tuple[str, ...]
    table: str
    # True where the bad value replaced a good row's (the spool row with util 500): one read,
    # one fewer loaded. False: a record added (one more read).
    replaces_a_good_row: bool = False


def _plant_billing(out: Path) -> Planted:
    # An offset that takes the start past year 9999 in UTC.
    row = billing_row(usage_start_time="9999-12-31T23:30:00-05:00")
    write_ndjson(out / "billing" / DAY / "zz-hostile.ndjson", [row])
    return Planted(
        "gcp_billing",
        f"billing/{DAY}/zz-hostile.ndjson",
        "gcp_billing",
        1,
        ("9999-12-31T23:30:00-05:00", "between years 1 and 9999"),
        "billing_line_items",
    )


def _plant_jobs(out: Path) -> Planted:
    # 1,000 H100s on one VM: no machine (nor a jobs file's slice) holds more than 8.
    run = run_record(
        "hostile-000001",
        project_id="acme-llm-prod",
        accelerator_count=1000,
        placements=[{"resource_name": "a3-llm-0000", "accelerators": 1000}],
    )
    write_ndjson(out / "jobs" / "zz-hostile.jsonl", [run])
    return Planted(
        "jobs",
        "jobs/zz-hostile.jsonl",
        "jobs",
        1,
        ("1,000 H100-80GB on one resource at once", "more than 8"),
        "jobs",
    )


def _plant_spool(out: Path) -> Planted:
    # One real spool file rewritten: its first row's util_gpu_pct at 500, and a column a newer
    # agent might add. The file's other rows must still load (the column ignored, with a note).
    path = sorted((out / "spool").rglob("*.parquet"))[0]
    table = pq.read_table(path)
    metadata = table.schema.metadata
    column = table.column_names.index("util_gpu_pct")
    util = table.column(column).to_pylist()
    util[0] = 500.0
    table = table.set_column(column, table.schema.field(column), pa.array(util, pa.float64()))
    table = table.append_column("future_metric_pct", pa.array([12.5] * table.num_rows))
    pq.write_table(table.replace_schema_metadata(metadata), path)
    return Planted(
        "nvml_spool",
        str(path.relative_to(out)),
        "nvml_spool",
        0,
        ("util_gpu_pct outside 0-100",),
        "gpu_samples",
        replaces_a_good_row=True,
    )


def _plant_monitoring(out: Path) -> Planted:
    # A new page beside the day's: one series of a chip no page has, its one point a duty
    # cycle of 500 (a percentage past 100). Loaded, it would be a row of its own.
    real = sorted((out / "monitoring").rglob("*.json"))[0]
    series = json.loads(real.read_text())["timeSeries"][0]
    assert series["metric"]["type"].endswith("/duty_cycle")
    bad = {
        **series,
        "metric": {**series["metric"], "labels": {"accelerator_id": "7"}},
        "points": [
            {
                "interval": {"startTime": f"{DAY}T12:00:00Z", "endTime": f"{DAY}T12:00:00Z"},
                "value": {"doubleValue": 500.0},
            }
        ],
    }
    path = real.parent / "zz-hostile-00001.json"
    path.write_text(json.dumps({"timeSeries": [bad]}))
    return Planted(
        "cloud_monitoring",
        str(path.relative_to(out)),
        "cloud_monitoring",
        1,
        ("point: ", "500.0 is not a percentage in 0 .. 100"),
        "tpu_samples",
    )


def _plant_probes(out: Path) -> Planted:
    # A result line appended to the day's file, measured past year 9999 in UTC.
    path = out / "probes" / f"probe_results-{DAY}.jsonl"
    lines = path.read_text().splitlines()
    result = json.loads(lines[0]) | {
        "result_id": "hostile-probe-000001",
        "measured_at": "9999-12-31T23:30:00-05:00",
    }
    path.write_text("\n".join([*lines, json.dumps(result)]) + "\n")
    return Planted(
        "probes",
        str(path.relative_to(out)),
        "probe_results",
        len(lines) + 1,
        ("measured_at", "between years 1 and 9999"),
        "probe_results",
    )


def _plant_gateway(out: Path) -> Planted:
    # A request of 1e30 prompt tokens (no BIGINT holds it), in a new log file.
    real = sorted((out / "managed" / "gateway").glob("*.ndjson"))[0]
    request = json.loads(real.read_text().splitlines()[0])
    request |= {"request_id": "chatcmpl-hostile-000001", "prompt_tokens": 1e30}
    path = real.parent / "zz-hostile.ndjson"
    path.write_text(json.dumps(request) + "\n")
    return Planted(
        "managed_inference",
        str(path.relative_to(out)),
        "managed_inference",
        1,
        ("prompt_tokens", "does not fit its BIGINT column"),
        "managed_requests",
    )


def _plant_provider(out: Path) -> Planted:
    # A provider's cost page whose one bucket starts in year 9999 (epoch seconds, as the
    # OpenAI organisation costs format writes them).
    start = int(datetime(9999, 1, 1, tzinfo=UTC).timestamp())
    page = {
        "object": "page",
        "data": [
            {
                "object": "bucket",
                "start_time": start,
                "end_time": start + 86_400,
                "results": [
                    {
                        "object": "organization.costs.result",
                        "amount": {"value": 41.5, "currency": "usd"},
                        "line_item": "llama-70b, input",
                        "project_id": "proj-applied",
                    }
                ],
            }
        ],
        "has_more": False,
        "next_page": None,
    }
    path = out / "managed" / "fireworks_ai" / "costs-zz-hostile.json"
    path.write_text(json.dumps(page, indent=1))
    return Planted(
        "managed_inference",
        str(path.relative_to(out)),
        "managed_inference",
        None,
        # (read as microseconds, past year 3000 in seconds: the value as written is said too)
        ("start_time", "outside the plausible window", f"(written {start})"),
        "managed_requests",  # the source's one report line (its files feed four tables)
    )


def _plant_pods(out: Path) -> Planted:
    # A new `kubectl get pods -o json` list of one pod, a run of its own, asking for a
    # billion GPUs on one node.
    pods = json.loads((out / "kubernetes" / "pods.json").read_text())
    pod = copy.deepcopy(pods["items"][0])
    meta = pod["metadata"]
    meta["uid"], meta["name"] = "hostile-0000-4000-8000-000000000001", "job-hostile-1-aaaaa"
    meta["labels"] |= {"run_id": "gke-hostile-1", "batch.kubernetes.io/job-name": "job-hostile-1"}
    for owner in meta.get("ownerReferences", []):
        owner |= {"name": "job-hostile-1", "uid": "job-uid-hostile-1"}
    for container in pod["spec"]["containers"]:
        for kind in ("limits", "requests"):
            container["resources"][kind]["nvidia.com/gpu"] = "1000000000"
    path = out / "kubernetes" / "zz-hostile.json"
    path.write_text(json.dumps({**pods, "items": [pod]}, indent=1))
    return Planted(
        "kubernetes",
        str(path.relative_to(out)),
        "kubernetes",
        1,
        ("run gke-hostile-1", "1,000,000,000 H100-80GB on one node at once"),
        "jobs",  # the pods' runs are the jobs source's rows
    )


def _plant_focus(out: Path) -> Planted:
    # A real GPU usage row again, in a new file of the same schema, billing a quadrillion USD.
    real = sorted((out / "aws-focus").rglob("*.parquet"))[0]
    table = pq.read_table(real)
    rows = table.to_pylist()
    row = next(r for r in rows if "BoxUsage:p5" in (r["x_UsageType"] or ""))  # 8 x H100
    row = row | {"BilledCost": Decimal("1000000000000000")}
    path = real.parent / "zz-hostile.snappy.parquet"
    pq.write_table(pa.Table.from_pylist([row], schema=table.schema), path)
    return Planted(
        "focus",
        str(path.relative_to(out)),
        "focus",
        1,
        ("BilledCost", "limits.max_money"),
        "focus_line_items",
    )


PLANTS = (
    _plant_billing,
    _plant_jobs,
    _plant_spool,
    _plant_monitoring,
    _plant_probes,
    _plant_gateway,
    _plant_provider,
    _plant_pods,
    _plant_focus,
)
# The raw tables the sources write (ingest/registry.py), and the quarantine.
RAW_TABLES = sorted({t.name for s in SOURCES for t in s.tables})


@dataclass
class Run:
    out: Path
    code: int
    printed: str
    progress: str
    counts: dict[str, int]
    quarantine: list[tuple[str, str, int | None, str]]  # (source, file relative, line, reason)
    sums: dict[str, Decimal]


def _one(con: duckdb.DuckDBPyConnection, sql: str) -> Any:
    row = con.execute(sql).fetchone()
    assert row is not None
    return row[0]


def _read_back(out: Path) -> tuple[dict[str, int], list, dict[str, Decimal]]:
    con = duckdb.connect(str(out / "warehouse.duckdb"), read_only=True)
    try:
        counts = {t: _one(con, f"SELECT count(*) FROM {t}") for t in [*RAW_TABLES, "quarantine"]}
        prefix = f"{out}/"
        quarantine = [
            (source, file.removeprefix(prefix) if file else file, line, reason)
            for source, file, line, reason in con.execute(
                "SELECT source, file, line, reason FROM quarantine"
            ).fetchall()
        ]
        sums = {
            name: _one(con, f"SELECT sum({column}) FROM {table}")
            for name, table, column in (
                ("the bill", "billing_line_items", "cost_usd"),
                ("FOCUS billed", "focus_line_items", "billed_cost"),
                ("provider costs", "managed_costs", "amount"),
                ("gateway spend", "managed_requests", "spend"),
            )
        }
        return counts, quarantine, sums
    finally:
        con.close()


def _run(out: Path) -> Run:
    printed, progress = io.StringIO(), io.StringIO()
    with redirect_stdout(printed), redirect_stderr(progress):
        code = main(["run", "--config", str(out / "flopledger.yaml")])
    counts, quarantine, sums = _read_back(out)
    return Run(out, code, printed.getvalue(), progress.getvalue(), counts, quarantine, sums)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Run, Run, list[Planted]]:
    clean, hostile = (
        _fleet(tmp_path_factory.mktemp("clean")),
        _fleet(tmp_path_factory.mktemp("bad")),
    )
    configured = yaml.safe_load((hostile / "flopledger.yaml").read_text())["sources"]
    planted = []
    for plant in PLANTS:
        one = plant(hostile)
        # Planted only where the fleet's config reads: a source it does not name proves nothing.
        assert one.config_key in configured, (one.config_key, sorted(configured))
        planted.append(one)
    return _run(clean), _run(hostile), planted


def test_both_runs_exit_0_and_every_source_has_its_bad_record(runs):
    clean, hostile, planted = runs
    assert clean.code == 0, clean.printed + clean.progress
    assert hostile.code == 0, hostile.printed + hostile.progress
    assert {p.config_key for p in planted} == {
        "gcp_billing",
        "jobs",
        "nvml_spool",
        "cloud_monitoring",
        "probes",
        "managed_inference",
        "kubernetes",
        "focus",
    }
    assert "snapshot for readers:" in hostile.printed
    # No bad record opened a day: the window is the clean run's.
    days = [re.findall(r"ingest: \d+ day\(s\), \S+ \.\. \S+", r.progress) for r in runs[:2]]
    assert len(days[0]) == 1 and days[1] == days[0], days


def test_every_good_record_is_loaded(runs):
    clean, hostile, planted = runs
    fewer = Counter(p.table for p in planted if p.replaces_a_good_row)
    assert fewer == {"gpu_samples": 1}
    expected = {t: clean.counts[t] - fewer[t] for t in RAW_TABLES}
    assert {t: hostile.counts[t] for t in RAW_TABLES} == expected
    assert all(clean.counts[t] > 0 for t in RAW_TABLES), clean.counts


def test_exactly_the_bad_records_are_quarantined_each_with_its_file_and_reason(runs):
    clean, hostile, planted = runs
    added = Counter(hostile.quarantine) - Counter(clean.quarantine)
    assert not Counter(clean.quarantine) - Counter(hostile.quarantine)  # nothing of clean's gone
    assert hostile.counts["quarantine"] == clean.counts["quarantine"] + len(planted)
    assert sum(added.values()) == len(planted), sorted(added)
    for one in planted:
        rows = [q for q in added if (q[0], q[1], q[2]) == (one.source, one.file, one.line)]
        assert len(rows) == 1, (one, sorted(added))
        reason = rows[0][3]
        for words in one.words:
            assert words in reason, (one.file, reason)


def test_the_bill_is_the_clean_runs_to_the_nano(runs):
    clean, hostile, _ = runs
    assert hostile.sums == clean.sums
    assert all(isinstance(v, Decimal) and v > 0 for v in clean.sums.values()), clean.sums


def _report_lines(printed: str) -> dict[str, dict[str, int]]:
    """Each source line of the run report: its table and the count of each column shown."""
    lines = printed.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("source table"))
    titles = re.split(r"\s{2,}", lines[head].removeprefix("source table").strip())
    found = {}
    for line in lines[head + 1 :]:
        match = re.fullmatch(r"(\w+)((?:\s+[\d,]+)+)", line.strip())
        if not match:
            if line.startswith("  "):
                continue  # a note under a line (skipped pods, unaccounted rows)
            break
        numbers = [int(n.replace(",", "")) for n in match.group(2).split()]
        assert len(numbers) == len(titles), (titles, line)
        found[match.group(1)] = dict(zip(titles, numbers, strict=True))
    return found


def test_every_source_line_closes_and_counts_its_bad_record(runs):
    clean, hostile, planted = runs
    reported = []
    for run in (clean, hostile):
        assert "neither loaded nor refused" not in run.printed
        lines = _report_lines(run.printed)
        reported.append(lines)
        assert {p.table for p in planted} <= set(lines), run.printed
        for table, counts in lines.items():
            read, *parts = counts.values()
            assert list(counts)[0] == "read"
            assert read == sum(parts), (table, counts)
    before, after = reported
    assert set(before) == set(after)
    for table in before:
        bad = [p for p in planted if p.table == table]
        added = sum(not p.replaces_a_good_row for p in bad)
        replaced = len(bad) - added
        assert after[table]["read"] == before[table]["read"] + added, table
        assert after[table]["quarantined"] == before[table]["quarantined"] + len(bad), table
        assert after[table]["loaded"] == before[table]["loaded"] - replaced, table
        for column in set(before[table]) - {"read", "loaded", "quarantined"}:
            assert after[table].get(column, 0) == before[table][column], (table, column)


def test_the_spools_extra_column_is_a_warning_not_a_refusal(runs):
    _, hostile, planted = runs
    spool = next(p for p in planted if p.source == "nvml_spool")
    warnings = hostile.printed.partition("\ninput warnings:\n")[2].split("\n\n")[0]
    line = next(w for w in warnings.splitlines() if "sources.nvml_spool" in w)
    assert "1 file(s): column(s) future_metric_pct ignored" in line
    assert Path(spool.file).name in line
    # The file was read by its columns: not refused whole (a row of line None), only its one row.
    assert [q[:3] for q in hostile.quarantine if q[1] == spool.file] == [
        ("nvml_spool", spool.file, 0)
    ]
