"""Which extracts a run kept to some days reads (collectors/gcp_billing/days.py's
extract_days and could_hold): a file is left out only when every row in it starts on another
day."""

from datetime import date, datetime

import pyarrow as pa
import pyarrow.parquet as pq

from flopledger.collectors.gcp_billing.days import could_hold, extract_days
from flopledger.collectors.gcp_billing.read import read_billing_files
from tests.conftest import billing_row, write_ndjson

OCT2 = {date(2026, 10, 2)}
STAMP = pa.timestamp("us", tz="UTC")


def files_for_days(files, days):
    """The files a run kept to `days` reads, as ingest/gcp_billing/extracts.py chooses them."""
    return [path for path in files if could_hold(extract_days(path), days)]


def test_only_files_of_other_days_are_left_out(tmp_path):
    both = write_ndjson(tmp_path / "both.ndjson", [billing_row(hour="2026-10-01 03"),
                                                   billing_row(hour="2026-10-02 05")])  # fmt: skip
    other = write_ndjson(tmp_path / "other.ndjson", [billing_row(hour="2026-10-01 03")] * 2)
    # A late row: a 10-02 row exported on 10-05 among 10-05 rows, still read for 10-02.
    late = write_ndjson(
        tmp_path / "late.ndjson",
        [billing_row(hour="2026-10-05 01"),
         billing_row(hour="2026-10-02 07", export_time="2026-10-05 04:00:00 UTC")],
    )  # fmt: skip
    torn = write_ndjson(tmp_path / "torn.ndjson", [billing_row(hour="2026-10-01 03"), '{"cost": 1'])
    no_start = write_ndjson(
        tmp_path / "nostart.ndjson", [billing_row(hour="2026-10-01 03", usage_start_time=None)]
    )
    # Two starts on one line (a duplicated key): json keeps the last; the file may hold 10-02.
    twice = tmp_path / "twice.ndjson"
    twice.write_text(
        '{"usage_start_time": "2026-10-02 01:00:00 UTC", "usage_start_time": '
        '"2026-10-01 01:00:00 UTC"}\n'
    )
    blank = tmp_path / "blank.ndjson"
    blank.write_text("\n\n")
    csv = tmp_path / "export.csv"
    csv.write_text("usage_start_time\n2026-10-01\n")
    files = [both, other, late, torn, no_start, twice, blank, csv]
    assert files_for_days(files, OCT2) == [both, late, torn, no_start, twice, csv]
    # Every row of 10-01 is in a file read for 10-01: only `late` (10-02 and 10-05) is out.
    assert late not in files_for_days(files, {date(2026, 10, 1)})


def test_parquet_extracts_by_their_start_column(tmp_path):
    def parquet(name, starts, kind=STAMP):
        path = tmp_path / name
        pq.write_table(pa.table({"usage_start_time": pa.array(starts, kind)}), path)
        return path

    oct1, oct2 = datetime(2026, 10, 1, 23, 59), datetime(2026, 10, 2, 0, 0)
    only1 = parquet("only1.parquet", [oct1, oct1])
    has2 = parquet("has2.parquet", [oct1, oct2])
    a_null = parquet("null.parquet", [oct1, None])
    as_text = parquet("text.parquet", ["2026-10-01 01:00:00 UTC"], pa.string())
    torn = tmp_path / "torn.parquet"
    torn.write_bytes(b"PAR1 not parquet")
    files = [only1, has2, a_null, as_text, torn]
    assert files_for_days(files, OCT2) == [has2, a_null, as_text, torn]


def test_reading_the_kept_files_gives_the_same_rows(tmp_path):
    # 3 files: 10-01 only (2 rows), 10-02 with a late 10-01 row, a bad 10-02 row with 10-03.
    f1 = write_ndjson(tmp_path / "a.ndjson", [billing_row(hour="2026-10-01 01"),
                                              billing_row(hour="2026-10-01 02")])  # fmt: skip
    f2 = write_ndjson(tmp_path / "b.ndjson", [billing_row(hour="2026-10-02 01"),
                                              billing_row(hour="2026-10-01 09")])  # fmt: skip
    f3 = write_ndjson(tmp_path / "c.ndjson", [billing_row(hour="2026-10-02 03", cost="x"),
                                              billing_row(hour="2026-10-03 01")])  # fmt: skip
    whole, whole_stats = read_billing_files([f1, f2, f3], days=OCT2)
    kept = files_for_days([f1, f2, f3], OCT2)
    assert kept == [f2, f3]
    part, part_stats = read_billing_files(kept, days=OCT2)
    assert part.to_pylist() == whole.to_pylist() and part.num_rows == 1  # b's 10-02 row
    # The bad 10-02 row is quarantined either way; only a's 2 rows are not read at all.
    assert [q.file for q in part_stats.quarantined] == [str(f3)]
    assert (whole_stats.rows_read, part_stats.rows_read) == (6, 4)
