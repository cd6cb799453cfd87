"""One small simulated fleet with hostile inputs planted beside its real files, through
`flopledger run` twice: the run exits 0, every source's read = loaded + duplicate +
quarantined (+ outside the window), the bill is the simulator's truth to the nano, the
books close, nothing opened a decades-long window, and the rerun is byte-identical."""

from __future__ import annotations

import hashlib
import io
import re
from contextlib import redirect_stderr, redirect_stdout
from decimal import Decimal

import duckdb
import pyarrow.parquet as pq
import pytest

from flopledger.cli.main import main
from flopledger.collectors.nvml.spool import spool_file_name
from flopledger.simulator import simulate
from tests.conftest import billing_row, run_record
from tests.hostile.hostile import LOADED, Case, write_lines

# Hostile billing rows planted in billing/zz_hostile.ndjson (none has a real day to add).
BILLING = [
    billing_row(cost=9e28),
    billing_row(cost=9e28),
    billing_row(usage_start_time="1970-01-01 00:00:00 UTC"),
    billing_row(usage_start_time="20261001"),
    billing_row(
        usage_start_time="9999-01-01 00:00:00 UTC", usage_end_time="9999-01-01 01:00:00 UTC"
    ),
    billing_row(cost="NaN"),
]
JOBS = [
    run_record("hostile-1", tokens_in=2**63),
    run_record("hostile-2", submitted_at="9999-01-01T00:00:00Z"),
    "[1, 2]",
]


# Columns that record when a run loaded a row (budgets.loaded_at): a fact about the run, not
# a figure; everything else must be the same digits on a rerun.
WHEN_LOADED = {"loaded_at"}


def _tables(db) -> dict[str, str]:
    """sha256 of each table's rows, ordered (a rerun must give the same digest)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        names = [  # the intermediate schema's tables too; not the bookkeeping (when built)
            table if schema == "main" else f"{schema}.{table}"
            for schema, table in con.execute(
                "SELECT schema_name, table_name FROM duckdb_tables() "
                "WHERE schema_name <> 'bookkeeping'"
            ).fetchall()
        ]
        digests = {}
        for name in sorted(names):
            columns = [r[0] for r in con.execute(f"DESCRIBE {name}").fetchall()]
            keep = ", ".join(c for c in columns if c not in WHEN_LOADED)
            rows = con.execute(f"SELECT {keep} FROM {name}").fetchall()
            digests[name] = hashlib.sha256("\n".join(sorted(map(repr, rows))).encode()).hexdigest()
        return digests
    finally:
        con.close()


def _plant(out):
    billing = out / "billing"
    real = sorted(billing.rglob("*.ndjson"))[0]
    first_line = real.read_bytes().splitlines()[0]
    # A real row again in another extract (a duplicate), and invalid bytes in a label.
    (billing / "zz_again.ndjson").write_bytes(b"\xef\xbb\xbf" + first_line + b"\n")
    write_lines(
        billing / "zz_hostile.ndjson", [Case(str(i), r, LOADED) for i, r in enumerate(BILLING)]
    )
    path = billing / "zz_bytes.ndjson"
    path.write_bytes(b'{"labels": [{"key": "team", "value": "llm\xff"}]}\n')
    write_lines(
        out / "jobs" / "zz_hostile.jsonl", [Case(str(i), r, LOADED) for i, r in enumerate(JOBS)]
    )
    spool = sorted((out / "spool").rglob("*.parquet"))[0]
    table = pq.read_table(spool)
    names = ["gpu_util_pct" if n == "util_gpu_pct" else n for n in table.column_names]
    node, minute = table["node"][0].as_py(), table["minute"][0].as_py()
    pq.write_table(
        table.rename_columns(names), spool.parent / spool_file_name(node, minute, "renamed")
    )
    return 1 + 1 + len(BILLING)  # billing rows planted: 1 duplicate + 1 bytes + hostile


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    sim = simulate(tmp_path_factory.mktemp("fleet"), gpus=8, tpu_chips=4, days=1, seed=5)
    _plant(sim.out_dir)
    config = str(sim.config_path)
    outputs = []
    for _ in range(2):
        printed, progress = io.StringIO(), io.StringIO()
        with redirect_stdout(printed), redirect_stderr(progress):
            code = main(["run", "--config", config])
        tables = _tables(sim.out_dir / "warehouse.duckdb")
        outputs.append((code, tables, printed.getvalue(), progress.getvalue()))
    return sim, outputs


def test_the_runs_exit_0_and_the_rerun_is_byte_identical(run):
    _, ((code1, first, *_), (code2, second, *_)) = run
    assert code1 == 0 and code2 == 0
    differ = sorted(n for n in first if first[n] != second.get(n))
    assert differ == []
    assert {"billing_line_items", "jobs", "gpu_samples", "quarantine", "cost_per_run"} <= set(first)


def test_the_bill_is_the_truth_and_every_hostile_input_is_quarantined(run):
    sim, _ = run
    con = duckdb.connect(str(sim.out_dir / "warehouse.duckdb"), read_only=True)
    try:
        billed = con.execute("SELECT sum(cost_usd) FROM billing_line_items").fetchone()[0]
        reasons = con.execute("SELECT source, file, reason FROM quarantine").fetchall()
        first_day, last_day = con.execute(
            "SELECT min(usage_day), max(usage_day) FROM billing_line_items"
        ).fetchone()
    finally:
        con.close()
    # Planted rows add nothing: the 9e28s, 1970, 9999, NaN and bad bytes are refused, the
    # copied row is a duplicate. The bill is the simulator's to the nano.
    assert billed == Decimal(sim.totals["billed_usd"])
    hostile = [r for r in reasons if "zz_" in r[1] or "renamed" in r[1]]
    by_file = {}
    for _, file, reason in hostile:
        by_file.setdefault(file.rsplit("/", 1)[-1], []).append(reason)
    assert len(by_file["zz_hostile.ndjson"]) == len(BILLING)
    assert by_file["zz_bytes.ndjson"][0].startswith("invalid UTF-8")
    assert len(by_file["zz_hostile.jsonl"]) == len(JOBS)
    assert any("unknown column(s) gpu_util_pct" in r for f, rs in by_file.items() for r in rs)
    assert (last_day - first_day).days <= 2  # no 1970 or 9999 window


ROW = re.compile(r"^(\w+)\s+([\d,]+)\s+([\d,]+)\s+([\d,]+)\s+([\d,]+)(?:\s+([\d,]+))?$")


def test_every_source_line_closes_read_loaded_duplicate_quarantined(run):
    _, ((_, _, printed, progress), *_) = run
    counts = {}
    for line in printed.splitlines():
        match = ROW.match(line.strip())
        if match:
            numbers = [int(g.replace(",", "")) for g in match.groups()[1:] if g is not None]
            counts[match.group(1)] = numbers
    assert {"billing_line_items", "jobs", "gpu_samples"} <= set(counts), printed
    for table, (read, *parts) in counts.items():
        assert read == sum(parts), (table, read, parts)
    assert "neither loaded nor refused" not in printed
    # billing: the copied row is a duplicate; the hostile rows are quarantined (5 + bad bytes).
    assert counts["billing_line_items"][2] >= 1
    assert counts["billing_line_items"][3] == len(BILLING) + 1
    assert counts["jobs"][3] == len(JOBS)
    # The books close: no ERROR check failed and the snapshot was published.
    # (A one-day fleet's budgets forecast past their limits: an ERROR of budget_status, not
    # of the books.)
    assert "snapshot for readers:" in printed and "ERROR books." not in printed
    days = int(re.search(r"ingest: (\d+) day", progress).group(1))
    assert days <= 3  # the simulated day and the spool's next: not 20,730 days
