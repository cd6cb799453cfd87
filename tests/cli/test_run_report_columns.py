"""The run report's read / loaded / quarantined table keeps its columns apart whatever the
counts: a month of a large fleet reads tens of millions of rows (8 digits and more), and the
benchmark once found `37,160,08837,160,088` where two columns ran together."""

from __future__ import annotations

from flopledger.cli.run_report import _source_lines


def test_eight_digit_counts_and_long_table_names_stay_apart() -> None:
    materialized = {
        "gpu_samples": {
            "rows_read": 37_160_088,
            "rows_loaded": 37_160_088,
            "rows_duplicate": 0,
            "rows_quarantined": 0,
        },
        "a_source_table_named_at_length": {
            "rows_read": 12,
            "rows_loaded": 10,
            "rows_duplicate": 1,
            "rows_quarantined": 1,
            "rows_outside_window": 0,
        },
    }
    lines = _source_lines(materialized)
    rows = {line.split()[0]: line.split()[1:] for line in lines[2:]}
    # Split on blanks, each count is its own field: 4 counts, no optional column (none > 0).
    assert rows["gpu_samples"] == ["37,160,088", "37,160,088", "0", "0"]
    assert rows["a_source_table_named_at_length"] == ["12", "10", "1", "1"]
    header = lines[1].split()
    assert header == ["source", "table", "read", "loaded", "duplicate", "quarantined"]
    # Small counts keep today's layout: the read column ends at character 32 (22 + 10).
    small = _source_lines({"jobs": {"rows_read": 5, "rows_loaded": 5}})
    assert small[2] == f"{'jobs':<22}{5:>10}{5:>10}{0:>11}{0:>13}"
