"""The managed inference source's loading rule: the window's days, plus every day the inputs
hold differently from what is loaded (late rows are never lost to the schedule's window);
a rerun changes nothing; a day the inputs no longer hold is left as it was."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from flopledger.collectors.inference.gateway import read_gateway_logs
from flopledger.collectors.inference.price_book import MANAGED_PRICES_SCHEMA
from flopledger.collectors.inference.provider_export import (
    MANAGED_COSTS_SCHEMA,
    MANAGED_USAGE_SCHEMA,
)
from flopledger.ingest.managed_inference import days_to_replace, load
from flopledger.warehouse.duckdb import DuckDBWarehouse
from tests.models.test_managed_inference import _request

D1, D2, D3 = date(2026, 10, 1), date(2026, 10, 2), date(2026, 10, 3)


def _read(*paths: Path) -> dict:
    requests, bad = read_gateway_logs(list(paths))
    empty = {
        "managed_usage": MANAGED_USAGE_SCHEMA.empty_table(),
        "managed_costs": MANAGED_COSTS_SCHEMA.empty_table(),
        "managed_prices": MANAGED_PRICES_SCHEMA.empty_table(),
    }
    return {"managed_requests": requests, **empty, "quarantined": bad}


def _write(path: Path, *records: dict) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _loaded(w: DuckDBWarehouse) -> list[tuple[str, str]]:
    rows = w.query(
        "SELECT request_id, CAST(started_at AS DATE) AS d FROM managed_requests ORDER BY 1"
    )
    return [(r["request_id"], str(r["d"])) for r in rows.to_pylist()]


def test_late_rows_rerun_and_vanished_days(tmp_path: Path) -> None:
    w = DuckDBWarehouse(tmp_path / "w.duckdb")
    w.ensure_schema()
    day1 = _write(tmp_path / "a.ndjson", _request("a", "together_ai", 10, 5, 0.1))  # 2026-10-01
    day2 = _write(tmp_path / "b.ndjson", {**_request("b", "together_ai", 10, 5, 0.1),
                  "startTime": "2026-10-02T09:00:00Z", "endTime": "2026-10-02T09:00:01Z"})  # fmt: skip
    # A run for 2 October only: 1 October is not loaded yet, so it is taken too.
    load(w, _read(day1, day2), [D2])
    assert _loaded(w) == [("a", "2026-10-01"), ("b", "2026-10-02")]
    # Rerun: only the window's day is replaced; nothing changes.
    assert days_to_replace(w, _read(day1, day2), [D3])["managed_requests"] == [D3]
    # A late file for 1 October arrives; the run is for 3 October: 1 October is rebuilt.
    late = _write(
        tmp_path / "c.ndjson",
        _request("c", "together_ai", 1, 1, 0.2, start="23:00:00", end="23:00:01"),
    )
    assert days_to_replace(w, _read(day1, day2, late), [D3])["managed_requests"] == [D1, D3]
    load(w, _read(day1, day2, late), [D3])
    assert _loaded(w) == [("a", "2026-10-01"), ("b", "2026-10-02"), ("c", "2026-10-01")]
    # 2 October's file is archived away: its day stays as it was, even inside the window.
    load(w, _read(day1, late), [D2])
    assert _loaded(w) == [("a", "2026-10-01"), ("b", "2026-10-02"), ("c", "2026-10-01")]
