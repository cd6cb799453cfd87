"""`flopledger run` and `flopledger sql` end to end on hand-written inputs in the real formats."""

import hashlib
import io
import re
from contextlib import redirect_stdout
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from flopledger.cli.main import main
from tests.built_once import built_once
from tests.conftest import (
    billing_row,
    credit,
    new_project_dir,
    run_record,
    write_config,
    write_ndjson,
)


def _tables(db):
    con = duckdb.connect(str(db), read_only=True)
    try:
        names = [  # the intermediate tables too, in their own schema; not the bookkeeping
            table if schema == "main" else f"{schema}.{table}"
            for schema, table in con.execute(
                "SELECT schema_name, table_name FROM duckdb_tables() "
                "WHERE schema_name <> 'bookkeeping' ORDER BY 1, 2"
            ).fetchall()
        ]
        return {n: sorted(map(repr, con.execute(f"SELECT * FROM {n}").fetchall())) for n in names}
    finally:
        con.close()


def _checksums(db):
    return {
        n: hashlib.sha256("\n".join(rows).encode()).hexdigest() for n, rows in _tables(db).items()
    }


def _scalar(db, sql):
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchone()[0]
    finally:
        con.close()


# _inputs' distinct rows: a, b, c, late. Billed: 100.25 + 100.25 + 50.10 + 0 = 250.60.
# Credits: -20.05 - 20.05 - 5.005 = -45.105. Effective: 250.60 - 45.105 = 205.495.
BILLED, EFFECTIVE = Decimal("250.60"), Decimal("205.495")


def _inputs(project_dir):
    """Two extracts that overlap by one row, and a credit for day 1 exported a week late."""
    a = billing_row(hour="2026-10-01 00", cost="100.25", credits=[credit("-20.05")])
    b = billing_row(hour="2026-10-01 01", cost="100.25", credits=[credit("-20.05")])
    c = billing_row(hour="2026-10-02 00", cost="50.10", sku="A3 Instance Core running in Americas")
    late = billing_row(
        hour="2026-10-01 00",
        cost=0,
        credits=[credit("-5.005", "PROMOTION")],
        export_time="2026-10-09 06:00:00 UTC",
    )
    write_ndjson(project_dir / "billing" / "extract-1.ndjson", [a, b])
    write_ndjson(project_dir / "billing" / "extract-2.ndjson", [b, c])  # b again: an overlap
    write_ndjson(project_dir / "billing" / "late.ndjson", [late, '{"broken": '])
    write_ndjson(
        project_dir / "jobs" / "runs.jsonl", [run_record("run-1"), run_record("bad", status="?")]
    )


def _run_once(root: Path) -> Path:
    """project_dir's layout with _inputs, through `flopledger run` once; its report in run.out."""
    _inputs(new_project_dir(root))
    printed = io.StringIO()
    with redirect_stdout(printed):
        assert main(["run", "--config", str(root / "flopledger.yaml")]) == 0
    (root / "run.out").write_text(printed.getvalue())
    return root / "flopledger.yaml"


@pytest.fixture
def ran(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private copy of _inputs' project after its first run (made once a session)."""
    return built_once(tmp_path_factory, "run_inputs", _run_once).parent


def test_totals_duplicates_late_rows_and_counts(ran):
    db = ran / "w.duckdb"
    assert _scalar(db, "SELECT count(*) FROM billing_line_items") == 4
    assert _scalar(db, "SELECT sum(cost_usd) FROM billing_line_items") == BILLED
    assert (
        _scalar(db, "SELECT sum(cost_usd + credits_total_usd) FROM billing_line_items") == EFFECTIVE
    )
    assert _scalar(db, "SELECT sum(effective_cost) FROM spend_daily") == EFFECTIVE
    # Quarantine: the torn billing line and the bad run record, each with its reason.
    reasons = dict(
        duckdb.connect(str(db), read_only=True)
        .execute("SELECT source, reason FROM quarantine")
        .fetchall()
    )
    assert reasons["gcp_billing"].startswith("not valid JSON")
    assert reasons["jobs"].startswith("status: '?' is not one of")
    out = (ran / "run.out").read_text()
    # 6 billing lines read = 4 loaded (new) + 1 duplicate (b twice) + 1 quarantined.
    line = f"{'billing_line_items':<22}{6:>10}{4:>10}{1:>11}{1:>13}"
    assert line in out
    assert "effective cost" in out and "205.50 USD" in out


def test_rerun_changes_nothing(project_dir):
    """Its own two runs, not a copy of `ran`: a copy's inputs lie at other paths, and rows
    name the file they came from."""
    _inputs(project_dir)
    config = str(project_dir / "flopledger.yaml")
    assert main(["run", "--config", config]) == 0
    first = _checksums(project_dir / "w.duckdb")
    assert main(["run", "--config", config]) == 0
    assert _checksums(project_dir / "w.duckdb") == first
    assert set(first) >= {
        "billing_line_items",
        "jobs",
        "job_placements",
        "quarantine",
        "spend_daily",
    }


def test_a_late_row_is_picked_up_by_a_later_run(project_dir):
    config = str(project_dir / "flopledger.yaml")
    write_ndjson(project_dir / "billing" / "1.ndjson", [billing_row(cost=10)])
    assert main(["run", "--config", config]) == 0
    # Weeks later a credit for that old day arrives in a new extract.
    late = billing_row(cost=0, credits=[credit(-2)], export_time="2026-10-30 00:00:00 UTC")
    write_ndjson(project_dir / "billing" / "2.ndjson", [late])
    assert main(["run", "--config", config]) == 0
    assert _scalar(
        project_dir / "w.duckdb", "SELECT sum(effective_cost) FROM spend_daily"
    ) == Decimal(8)


def test_days_after_today_build_too(project_dir):
    # Data dated after the machine's today (a simulated year, a clock behind the data): the
    # day-grained marts still have a partition for it. 5 days on: past Dagster's partitions
    # (to today), within the plausible window (limits.future_days, 7 by default).
    day = datetime.now(UTC).date() + timedelta(days=5)
    row = billing_row(hour=f"{day} 00", cost=7, export_time=f"{day} 04:00:00 UTC")
    write_ndjson(project_dir / "billing" / "1.ndjson", [row])
    config = str(project_dir / "flopledger.yaml")
    assert main(["run", "--config", config, "--from", str(day), "--to", str(day)]) == 0
    assert _scalar(
        project_dir / "w.duckdb", f"SELECT sum(effective_cost) FROM spend_daily WHERE day = '{day}'"
    ) == Decimal(7)


def test_backfill_range_loads_only_those_days(project_dir, capsys):
    rows = [billing_row(hour=f"2026-10-0{d} 00", cost=d) for d in (1, 2, 3)]
    write_ndjson(project_dir / "billing" / "x.ndjson", rows)
    # An extract of other days only (10-01 and 10-03) is not read at all (issue 15).
    others = [billing_row(hour=f"2026-10-0{d} 05", cost=10 * d) for d in (1, 3)]
    write_ndjson(project_dir / "billing" / "y.ndjson", others)
    config = str(project_dir / "flopledger.yaml")
    assert main(["run", "--config", config, "--from", "2026-10-02", "--to", "2026-10-02"]) == 0
    assert _scalar(project_dir / "w.duckdb", "SELECT sum(cost_usd) FROM billing_line_items") == 2
    # read 3 (x's rows, not y's 2), loaded 1, duplicate 0, quarantined 0, outside 2 (x's).
    counts = re.search(r"billing_line_items((?:\s+[\d,]+){5})", capsys.readouterr().out)
    assert counts is not None and counts.group(1).split() == ["3", "1", "0", "0", "2"]


def test_empty_inputs_are_valid(project_dir, capsys):
    (project_dir / "billing" / "empty.ndjson").write_text("")
    (project_dir / "jobs" / "empty.jsonl").write_text("")
    assert main(["run", "--config", str(project_dir / "flopledger.yaml")]) == 0
    assert "no billing rows" in capsys.readouterr().out


def test_a_config_error_is_one_line_and_exit_2(tmp_path, capsys):
    # What load_config refuses is tested in tests/settings/test_config.py; here, how `run` says it.
    config = write_config(tmp_path, "warehouse: {kind: duckdb, pth: x}\n")
    assert main(["run", "--config", str(config)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("warehouse.pth: unknown key")
    assert len(err.splitlines()) == 1


def test_sql_is_read_only(ran, capsys):
    config = str(ran / "flopledger.yaml")
    assert (
        main(
            [
                "sql",
                "--config",
                config,
                "--format",
                "csv",
                "SELECT count(*) AS n FROM billing_line_items",
            ]
        )
        == 0
    )
    assert capsys.readouterr().out.splitlines() == ["n", "4"]
    assert main(["sql", "--config", config, "DROP TABLE billing_line_items"]) == 1
    assert "read-only" in capsys.readouterr().err
    assert _scalar(ran / "w.duckdb", "SELECT count(*) FROM billing_line_items") == 4


def test_a_scheduled_day_picks_up_late_rows_of_any_day(project_dir):
    """A daily run for 2026-10-20 loads a credit for usage on 2026-10-01 that arrived late."""
    from flopledger.pipelines.asset_jobs import INGEST_JOB
    from flopledger.pipelines.definitions import build_definitions

    late = billing_row(
        hour="2026-10-01 00", cost=0, credits=[credit(-3)], export_time="2026-10-20 00:00:00 UTC"
    )
    write_ndjson(project_dir / "billing" / "late.ndjson", [late])
    defs = build_definitions(
        str(project_dir / "flopledger.yaml"), start=date(2026, 10, 1), end=date(2026, 10, 20)
    )
    result = defs.resolve_job_def(INGEST_JOB).execute_in_process(partition_key="2026-10-20")
    assert result.success
    assert (
        _scalar(project_dir / "w.duckdb", "SELECT sum(credits_total_usd) FROM billing_line_items")
        == -3
    )


def test_a_rerun_keeps_days_whose_inputs_have_moved_on(project_dir):
    """Jobs of 2026-10-01 were archived out of the jobs folder: rerunning keeps them."""
    config = str(project_dir / "flopledger.yaml")
    write_ndjson(
        project_dir / "billing" / "x.ndjson", [billing_row(hour=f"2026-10-0{d} 00") for d in (1, 2)]
    )
    write_ndjson(project_dir / "jobs" / "a.jsonl", [run_record("old")])
    assert main(["run", "--config", config]) == 0
    (project_dir / "jobs" / "a.jsonl").unlink()
    newer = run_record(
        "new",
        submitted_at="2026-10-02T00:00:00Z",
        started_at="2026-10-02T00:00:00Z",
        ended_at="2026-10-02T01:00:00Z",
    )
    write_ndjson(project_dir / "jobs" / "b.jsonl", [newer])
    assert main(["run", "--config", config]) == 0
    assert (
        _scalar(
            project_dir / "w.duckdb", "SELECT string_agg(run_id, ',' ORDER BY run_id) FROM jobs"
        )
        == "new,old"
    )


def test_from_after_to_is_refused(project_dir, capsys):
    code = main(
        [
            "run",
            "--config",
            str(project_dir / "flopledger.yaml"),
            "--from",
            "2026-10-05",
            "--to",
            "2026-10-01",
        ]
    )
    assert code == 2
    assert "--from 2026-10-05 is after --to 2026-10-01" in capsys.readouterr().err
