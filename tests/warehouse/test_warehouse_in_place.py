"""Which warehouse reads a table where it lies (warehouse/base.py's `in_place`, what the billing
export's in-place read asks): BigQuery on its own endpoint and, where both are named, its own
location; DuckDB never. Nothing is connected to answer."""

from pathlib import Path

from flopledger.warehouse.bigquery import BigQueryWarehouse
from flopledger.warehouse.duckdb import DuckDBWarehouse

EMULATOR = "http://127.0.0.1:9050"


def test_bigquery_reads_in_place_on_its_own_endpoint_and_location() -> None:
    here = BigQueryWarehouse("p", "d", location="US", endpoint=EMULATOR)
    assert here.in_place(EMULATOR, "us") is here  # a location in either case
    assert here.in_place(EMULATOR, None) is here  # the table names no location
    assert here.in_place("http://127.0.0.1:9051", "US") is None  # another emulator
    assert here.in_place(None, "US") is None  # BigQuery itself, not this emulator
    assert here.in_place(EMULATOR, "EU") is None  # a query reads one location's tables
    google = BigQueryWarehouse("p", "d")
    assert google.in_place(None, "EU") is google  # the warehouse names no location
    assert google.in_place("", None) is google  # an empty endpoint is none


def test_duckdb_reads_nothing_in_place(tmp_path: Path) -> None:
    warehouse = DuckDBWarehouse(tmp_path / "w.duckdb")
    assert warehouse.in_place(None, None) is None
    assert list(tmp_path.iterdir()) == []  # nothing opened to answer
