"""A table naming a column twice is refused whole (issue 36, item 2a): which of the two a row
means cannot be told, and a reader keeping one (csv.DictReader and a Parquet row as a dict keep
the last) once loaded a FOCUS `BilledCost` of 999999.00 beside an `EffectiveCost` of 1.00.

Every tabular reader is held to it: FOCUS CSV and Parquet (and one FOCUS column in two cases),
the jobs file (CSV, Parquet), the price book, the NVML spool, and the two configuration CSVs
(fx_rates, the TPU inventory), which raise their file's error instead of a quarantine row. Each
file is written in its real format; one quarantine row for the file, never a row loaded."""

from __future__ import annotations

import csv
import json
from datetime import date, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from flopledger.budgets.budget_file import BudgetConfigError
from flopledger.budgets.fx import load_fx_rates
from flopledger.collectors.cloud_monitoring.inventory import InventoryError, load_inventory
from flopledger.collectors.focus.read import read_focus_files
from flopledger.collectors.inference.price_book import read_price_book
from flopledger.collectors.jobs.read import read_jobs_files
from flopledger.collectors.nvml.read import read_spool
from flopledger.collectors.nvml.schema import rows_to_table
from flopledger.collectors.nvml.spool import spool_file_name
from flopledger.ingest.focus import load
from flopledger.warehouse.duckdb import DuckDBWarehouse
from tests.conftest import run_record

FOCUS_HEAD = "ProviderName,ChargeCategory,ChargePeriodStart,ChargePeriodEnd,BilledCost,EffectiveCost,BillingCurrency"  # fmt: skip
FOCUS_ROW = "AWS,Usage,2026-03-01T00:00:00Z,2026-03-01T01:00:00Z,1.00,1.00,USD"


def test_a_focus_csv_with_two_billed_costs_is_refused_whole(tmp_path: Path) -> None:
    # The file: BilledCost in columns 5 and 8 (1.00 and 999999.00); two rows.
    twice = tmp_path / "twice.csv"
    twice.write_text(
        f"{FOCUS_HEAD},BilledCost\n{FOCUS_ROW},999999.00\n{FOCUS_ROW.replace('03-01', '03-02')},5\n"
    )
    good = tmp_path / "good.csv"
    good.write_text(f"{FOCUS_HEAD}\n{FOCUS_ROW}\n")
    read = read_focus_files([twice, good])
    assert read.table["billed_cost"].to_pylist() == [1]  # good.csv's one row, nothing of twice
    assert read.table["source_file"].to_pylist() == [str(good)]
    [refused] = read.quarantined
    assert (refused.file, refused.line) == (str(twice), None)
    assert refused.reason == (
        "duplicate column name 'BilledCost' (columns 5, 8): the file is refused whole"
    )
    assert refused.raw == f"{FOCUS_HEAD},BilledCost"  # the header, to see it by
    # Through the source's load: 1 read (the file refused whole counts one) + 1 good row read:
    # read 2 = loaded 1 + duplicate 0 + quarantined 1 + outside window 0.
    w = DuckDBWarehouse(tmp_path / "w.duckdb")
    w.ensure_schema()
    counts = load(w, read, [date(2026, 3, 1)])
    assert counts == {"rows_read": 2, "rows_loaded": 1, "rows_duplicate": 0,
                      "rows_quarantined": 1, "rows_outside_window": 0}  # fmt: skip
    stored = w.query("SELECT file, line, reason FROM quarantine").to_pylist()
    assert stored == [{"file": str(twice), "line": None, "reason": refused.reason}]


def test_one_focus_column_in_two_cases_is_refused_whole(tmp_path: Path) -> None:
    # `billedcost` is read as BilledCost (FOCUS names in any case): two BilledCosts again.
    path = tmp_path / "cases.csv"
    path.write_text(f"{FOCUS_HEAD},billedcost\n{FOCUS_ROW},999999.00\n")
    read = read_focus_files([path])
    assert read.table.num_rows == 0
    assert [(q.line, q.reason) for q in read.quarantined] == [
        (
            None,
            "duplicate column name: 'BilledCost' and 'billedcost' are both BilledCost (a FOCUS "
            "name is read in any case): the file is refused whole",
        )
    ]


def _focus_parquet(path: Path, names: list[str], values: list[object]) -> Path:
    arrays = [pa.array([v]) for v in values]
    pq.write_table(pa.Table.from_arrays(arrays, names=names), path)
    return path


def test_a_focus_parquet_with_a_column_or_a_struct_field_twice_is_refused(tmp_path: Path) -> None:
    names = FOCUS_HEAD.split(",")
    values: list[object] = ["AWS", "Usage", "2026-03-01T00:00:00Z", "2026-03-01T01:00:00Z",
                            "1.00", "1.00", "USD"]  # fmt: skip
    twice = _focus_parquet(tmp_path / "twice.parquet", [*names, "BilledCost"], [*values, "999999"])
    # Tags as a struct with `team` twice: a row as a dict keeps one of the two teams.
    tags = pa.StructArray.from_arrays([pa.array(["a"]), pa.array(["b"])], names=["team", "team"])
    nested = tmp_path / "nested.parquet"
    table = pa.Table.from_arrays([*(pa.array([v]) for v in values), tags], names=[*names, "Tags"])
    pq.write_table(table, nested)
    good = _focus_parquet(tmp_path / "good.parquet", names, values)
    read = read_focus_files([twice, nested, good])
    assert read.table["source_file"].to_pylist() == [str(good)]
    assert [(q.file, q.line, q.reason) for q in read.quarantined] == [
        (str(twice), None, "duplicate column name 'BilledCost' (columns 5, 8): the file is "
         "refused whole"),
        (str(nested), None, "duplicate column name 'Tags.team' (columns 1, 2): the file is "
         "refused whole"),
    ]  # fmt: skip


def test_a_jobs_csv_and_parquet_with_a_column_twice_are_refused(tmp_path: Path) -> None:
    record = run_record("r-1")
    columns = [k for k in record if k not in ("labels", "placements")]
    path = tmp_path / "runs.csv"
    with path.open("w", newline="") as fh:  # `team` twice: llm, then a second team
        writer = csv.writer(fh)
        writer.writerow([*columns, "team"])
        writer.writerow([*(record[c] for c in columns), "search"])
    parquet = tmp_path / "runs.parquet"
    table = pa.Table.from_pylist([{c: record[c] for c in columns}])
    pq.write_table(table.append_column("team", pa.array(["search"])), parquet)
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps(run_record("r-2")) + "\n")
    read = read_jobs_files([path, parquet, good])
    assert read.jobs["run_id"].to_pylist() == ["r-2"]
    # team is column 4 (run_id, job_id, attempt, team); the run's 17 plain columns (its 19
    # less labels and placements), then team again as column 18.
    reason = "duplicate column name 'team' (columns 4, 18): the file is refused whole"
    assert [(q.file, q.line, q.reason) for q in read.quarantined] == [
        (str(path), None, reason),
        (str(parquet), None, reason),
    ]
    # read 3 = runs 1 + quarantined 2 (each file refused whole counts one) + duplicates 0.
    assert (read.rows_read, read.duplicates) == (3, 0)


def test_a_price_book_with_a_price_twice_is_refused(tmp_path: Path) -> None:
    book = tmp_path / "prices.csv"
    book.write_text(
        "provider,model,valid_from,currency,input_per_mtok,output_per_mtok,source_url,as_of,input_per_mtok\n"
        "p,m,2026-10-01,USD,0.5,1.5,https://p.example/pricing,2026-09-30,50\n"
    )
    prices, bad = read_price_book(book)
    assert prices.num_rows == 0
    assert [(q.line, q.reason) for q in bad] == [
        (None, "duplicate column name 'input_per_mtok' (columns 5, 9): the file is refused whole")
    ]


def test_a_spool_file_with_a_column_twice_is_refused(tmp_path: Path) -> None:
    minute = datetime(2026, 10, 1, 8, 0)
    table = rows_to_table([{"minute": minute, "node": "n", "gpu_uuid": "GPU-0", "gpu_index": 0,
                            "power_w": 400.0, "samples": 60, "status": "ok"}])  # fmt: skip
    twice = table.append_column("power_w", pa.array([4000.0]))
    path = tmp_path / spool_file_name("n", minute, "aaaa")
    pq.write_table(twice, path)
    loaded, refused = read_spool([path])
    assert loaded.num_rows == 0
    # power_w is gpu_samples' 15th column of 32 (collectors/nvml/schema.py); again as the 33rd.
    assert [(q.line, q.reason) for q in refused] == [
        (None, "duplicate column name 'power_w' (columns 15, 33): the file is refused whole")
    ]


def test_configuration_csvs_with_a_column_twice_are_errors(tmp_path: Path) -> None:
    fx = tmp_path / "fx.csv"
    fx.write_text("date,currency,rate,rate\n2026-10-01,EUR,0.92,9.2\n")
    with pytest.raises(BudgetConfigError, match=r"duplicate column name 'rate' \(columns 3, 4\)"):
        load_fx_rates(fx)
    inventory = tmp_path / "inventory.csv"
    inventory.write_text("node,project_id,zone,worker_count,node\ntpu-a,p,us-east5-b,4,tpu-b\n")
    with pytest.raises(InventoryError, match=r"duplicate column name 'node' \(columns 1, 5\)"):
        load_inventory(inventory)
