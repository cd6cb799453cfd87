"""Rows at every bound at once go through the whole pipeline: no mart overflows and the books
close. This is the arithmetic of collectors/limits.py, run rather than argued."""

from __future__ import annotations

from decimal import Decimal

from tests.conftest import FileBooks, billing_row, run_record

GPU = "Nvidia H100 80GB GPU running in Americas"


def test_rows_at_the_bounds_build_every_mart_and_the_books_close(project_dir):
    # Two GPU rows of cost 1e12 (the money bound), 1e12 accelerator-seconds (that bound) and a
    # usage window of 366 days (the span bound): billing_hourly multiplies 1e21 nanos by up to
    # 3.16e13 us (3.2e34, under HUGEINT's 1.7e38); the sums reach 2e12 (under DECIMAL's 1e29).
    rows = [
        billing_row(
            sku=GPU,
            cost="1000000000000",
            usage_seconds="1000000000000",
            usage_start_time="2025-10-01 00:00:00 UTC",
            usage_end_time="2026-10-02 00:00:00 UTC",
            resource=f"a3-node-{i}",
        )
        for i in (1, 2)
    ]
    run = run_record(
        "run-1",
        submitted_at="2025-10-01T00:00:00Z",
        started_at="2025-10-01T00:00:00Z",
        ended_at="2025-10-01T01:00:00Z",
    )  # the same day as the rows' start: a one-day ingest window
    books = FileBooks(project_dir).build(rows, [run])  # asserts: no ERROR check failed
    assert books.one("SELECT sum(cost_usd) FROM billing_line_items") == Decimal(2 * 10**12)
    # billing_hourly spreads each row over its 8,784 hours and adds back to it exactly.
    assert books.one("SELECT sum(billed_nanos) FROM billing_hourly") == 2 * 10**12 * 10**9
    assert books.one("SELECT count(*) FROM books WHERE difference <> 0") == 0
