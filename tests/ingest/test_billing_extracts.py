"""Which billing extracts a run reads (ingest/gcp_billing/extracts.py): a scheduled run reads
the extracts new or rewritten since they were read whole, never the history's; a file with a
quarantined row is read again by every run; a run kept to its days reads those that may hold
one of them. Every row ends where a read of every file would put it."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

from flopledger.ingest.gcp_billing.source import GcpBilling
from flopledger.ingest.run import IngestRun
from flopledger.settings import load_config
from flopledger.warehouse import Warehouse
from flopledger.warehouse.duckdb import DuckDBWarehouse
from tests.conftest import billing_row, credit, write_config, write_ndjson

OCT1, OCT2 = date(2026, 10, 1), date(2026, 10, 2)


def _run(root: Path, w: Warehouse, days: list[date] | None = None) -> tuple[dict, list[str]]:
    said: list[str] = []
    run = IngestRun(
        load_config(root / "flopledger.yaml"),
        w,
        now=datetime(2026, 10, 10),
        days=days or [],
        window_only=days is not None,
        info=said.append,
    )
    return GcpBilling().load(run)["billing_line_items"], said


def _by_day(w: Warehouse) -> list[tuple[str, int, Decimal]]:
    rows = w.query(
        "SELECT CAST(usage_day AS VARCHAR) AS d, count(*) AS n, sum(cost) AS cost"
        " FROM billing_line_items GROUP BY 1 ORDER BY 1"
    )
    return [(r["d"], r["n"], r["cost"]) for r in rows.to_pylist()]


def _quarantined(w: Warehouse) -> int:
    return w.query("SELECT count(*) AS n FROM quarantine").to_pylist()[0]["n"]


def test_a_scheduled_run_reads_only_what_is_new_or_rewritten(tmp_path: Path) -> None:
    write_config(
        tmp_path,
        "warehouse: {kind: duckdb, path: w.duckdb}\n"
        'sources:\n  gcp_billing: {paths: ["billing/**/*.ndjson"]}\n',
    )
    bills = tmp_path / "billing"
    write_ndjson(bills / "2026-10-01" / "a.ndjson",
                 [billing_row(hour="2026-10-01 01", cost=10), billing_row(hour="2026-10-01 02", cost=20)])  # fmt: skip
    b = write_ndjson(bills / "2026-10-02" / "b.ndjson", [billing_row(hour="2026-10-02 01", cost=5)])
    w = DuckDBWarehouse(tmp_path / "w.duckdb")
    w.ensure_schema()

    first, _ = _run(tmp_path, w)
    assert (first["files_read"], first["rows_loaded"]) == (2, 3)
    # Nothing new: no extract is read, nothing loaded, the run says why.
    again, said = _run(tmp_path, w)
    assert (again["files_read"], again["rows_read"], again["rows_loaded"]) == (0, 0, 0)
    assert "gcp_billing: 2 of 2 extracts were read whole before and are unchanged: not read" in said
    # A late credit for 1 October in the 5 October extract: only that file is read.
    late = billing_row(hour="2026-10-01 03", cost=0, credits=[credit(-4)],
                       export_time="2026-10-05 04:00:00 UTC")  # fmt: skip
    write_ndjson(bills / "2026-10-05" / "c.ndjson", [late])
    third, _ = _run(tmp_path, w)
    assert (third["files_read"], third["rows_loaded"]) == (1, 1)
    # b rewritten with one row more: it alone is read; its old row is seen before.
    write_ndjson(b, [billing_row(hour="2026-10-02 01", cost=5), billing_row(hour="2026-10-02 05", cost=7)])  # fmt: skip
    fourth, _ = _run(tmp_path, w)
    assert (fourth["files_read"], fourth["rows_loaded"], fourth["rows_duplicate"]) == (1, 1, 1)
    # By hand: 1 Oct 10 + 20 + 0 (the credit's row), 2 Oct 5 + 7.
    assert _by_day(w) == [("2026-10-01", 3, Decimal(30)), ("2026-10-02", 2, Decimal(12))]


def test_a_file_with_a_quarantined_row_is_read_by_every_run(tmp_path: Path) -> None:
    write_config(
        tmp_path,
        "warehouse: {kind: duckdb, path: w.duckdb}\n"
        'sources:\n  gcp_billing: {paths: ["billing/*.ndjson"]}\n',
    )
    write_ndjson(tmp_path / "billing" / "torn.ndjson", [billing_row(cost=3), '{"cost": 1'])
    w = DuckDBWarehouse(tmp_path / "w.duckdb")
    w.ensure_schema()
    first, _ = _run(tmp_path, w)
    assert (first["files_read"], first["rows_loaded"], first["rows_quarantined"]) == (1, 1, 1)
    again, _ = _run(tmp_path, w)
    # read again, nothing new, the bad row still in quarantine once
    assert (again["files_read"], again["rows_loaded"], again["rows_duplicate"]) == (1, 0, 1)
    assert _quarantined(w) == 1


def test_a_run_kept_to_its_days_reads_the_files_that_may_hold_them(tmp_path: Path) -> None:
    write_config(
        tmp_path,
        "warehouse: {kind: duckdb, path: w.duckdb}\n"
        'sources:\n  gcp_billing: {paths: ["billing/*.ndjson"]}\n',
    )
    bills = tmp_path / "billing"
    write_ndjson(bills / "a.ndjson", [billing_row(hour="2026-10-01 01", cost=10)])
    write_ndjson(bills / "b.ndjson", [billing_row(hour="2026-10-02 01", cost=5)])
    write_ndjson(bills / "c.ndjson", [billing_row(hour="2026-10-01 04", cost=1),
                                      billing_row(hour="2026-10-02 04", cost=2)])  # fmt: skip
    w = DuckDBWarehouse(tmp_path / "w.duckdb")
    w.ensure_schema()
    # A backfill of 2 October: b and c hold it; a is scanned, not read; c's 1 October row is
    # outside the window.
    oct2, said = _run(tmp_path, w, [OCT2])
    assert (oct2["files_read"], oct2["rows_loaded"], oct2["rows_outside_window"]) == (2, 2, 1)
    assert "gcp_billing: 1 of 3 extracts hold no row of the run's days: not read" in said
    assert _by_day(w) == [("2026-10-02", 2, Decimal(7))]
    # Again, from the marks alone (nothing scanned or read but b and c).
    again, _ = _run(tmp_path, w, [OCT2])
    assert (again["files_read"], again["rows_loaded"], again["rows_duplicate"]) == (2, 0, 2)
    # A scheduled run then: nothing was read whole, so all three are read; 1 October arrives.
    scheduled, _ = _run(tmp_path, w)
    assert (scheduled["files_read"], scheduled["rows_loaded"]) == (3, 2)
    assert _by_day(w) == [("2026-10-01", 2, Decimal(11)), ("2026-10-02", 2, Decimal(7))]
    # ... and the next reads none.
    assert _run(tmp_path, w)[0]["files_read"] == 0
