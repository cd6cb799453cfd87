"""A FOCUS 1.2 cost and usage dataset written from the `focus_costs` mart: its snake_case
columns under FOCUS's names (`billed_cost` -> `BilledCost`), `x_` columns as they are, Parquet
or CSV by the file's suffix. Money keeps its DECIMAL(38, 12) in Parquet and every digit in CSV;
times are UTC, written ISO 8601 with a `Z` in CSV. A CSV's text is formula-safe (cells/: a
`=HYPERLINK(...)` ResourceName is written `'=HYPERLINK(...)`, a spreadsheet's text, never run;
amounts as they are); Parquet holds every text as read."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from flopledger.cells import safe_strings
from flopledger.collectors.focus.read import COLUMNS, snake

SUFFIXES = (".parquet", ".csv")
_FOCUS_NAMES = {snake(name): name for name in COLUMNS}


class ExportError(ValueError):
    """An export that cannot be written; the message is the one line the CLI prints."""


def focus_names(table: pa.Table) -> pa.Table:
    """The mart's columns under FOCUS's names; x_ and other columns kept as named."""
    return table.rename_columns([_FOCUS_NAMES.get(n, n) for n in table.column_names])


def _utc(table: pa.Table) -> pa.Table:
    """Naive UTC timestamps as timestamps in UTC (what FOCUS's date-time columns mean)."""
    for i, field in enumerate(table.schema):
        if pa.types.is_timestamp(field.type) and field.type.tz is None:
            column = pc.assume_timezone(table.column(i), timezone="UTC")
            table = table.set_column(i, pa.field(field.name, column.type), column)
    return table


def _csv_ready(table: pa.Table) -> pa.Table:
    """Times as `YYYY-MM-DDTHH:MM:SSZ` text; decimals as their exact text in plain notation
    (Arrow writes a zero DECIMAL(38, 12) as `0E-12`); text formula-safe (before the numbers
    become text: a credit's -8.32 stays a number)."""
    table = safe_strings(table)
    for i, field in enumerate(table.schema):
        if pa.types.is_timestamp(field.type):
            seconds = pc.cast(table.column(i), pa.timestamp("s", tz="UTC"), safe=False)
            text = pc.strftime(seconds, format="%Y-%m-%dT%H:%M:%SZ")
            table = table.set_column(i, pa.field(field.name, pa.string()), text)
        elif pa.types.is_decimal(field.type):
            plain = [None if d is None else format(d, "f") for d in table.column(i).to_pylist()]
            table = table.set_column(
                i, pa.field(field.name, pa.string()), pa.array(plain, pa.string())
            )
    return table


def write_focus(table: pa.Table, out: Path) -> int:
    """Write the `focus_costs` rows to `out` (.parquet or .csv); returns the rows written."""
    suffix = out.suffix.lower()
    if suffix not in SUFFIXES:
        raise ExportError(f"{out}: the file name must end in .parquet or .csv")
    if not out.parent.is_dir():
        raise ExportError(f"{out.parent}: no such folder")
    table = _utc(focus_names(table))
    partial = out.with_name(f".{out.name}.partial")
    try:
        if suffix == ".parquet":
            pq.write_table(table, partial)
        else:
            pacsv.write_csv(_csv_ready(table), partial)
        partial.replace(out)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise ExportError(f"{out}: {exc.strerror or exc}") from None
    return table.num_rows
