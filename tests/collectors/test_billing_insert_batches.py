"""The billing asset's inserts take the readers' per-extract tables in larger batches."""

import pyarrow as pa

from flopledger.collectors.gcp_billing.read import in_batches_of


def _table(first: int, rows: int) -> pa.Table:
    return pa.table({"row_id": [f"r{i}" for i in range(first, first + rows)]})


def test_tables_are_joined_until_they_hold_enough_rows_in_the_same_order() -> None:
    # 3 + 4 = 7 >= 5: one table of r0..r6; then 2 + 6 = 8 >= 5: r7..r14; the last 1 alone.
    tables = [_table(0, 3), _table(3, 4), _table(7, 2), _table(9, 6), _table(15, 1)]
    out = list(in_batches_of(tables, 5))
    assert [t.num_rows for t in out] == [7, 8, 1]
    assert [r for t in out for r in t["row_id"].to_pylist()] == [f"r{i}" for i in range(16)]


def test_nothing_in_nothing_out_and_a_large_table_passes_whole() -> None:
    assert list(in_batches_of([], 5)) == []
    (whole,) = in_batches_of([_table(0, 12)], 5)
    assert whole.num_rows == 12
