"""What a text cell of a CSV flopledger writes is: formula-safe (issue 36), the one door every
CSV writer goes through (the month report, `flopledger export focus`, the dashboards'
downloads).

A spreadsheet runs a cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return as a
formula: a team named `=HYPERLINK("http://x.invalid")` would be a link in finance's sheet, and
`@SUM(...)` a sum (OWASP: CSV injection). Such a text is written with a leading `'`, which a
spreadsheet shows as the text and never runs. Only text is changed: a number (a negative
amount, a credit of -8.32) is written as it is, so an amount is never turned into text.
"""

from __future__ import annotations

from typing import Any, TypeVar

import pyarrow as pa
import pyarrow.compute as pc

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
QUOTE = "'"
# The same characters for Arrow's regex engine (RE2; `\xHH` reads alike in Python's).
_STARTS_PATTERN = "^[" + "".join(f"\\x{ord(c):02x}" for c in FORMULA_STARTS) + "]"

Tabular = TypeVar("Tabular", pa.Table, pa.RecordBatch)


def safe_text(text: str) -> str:
    """A text as a CSV cell: with a leading `'` when a spreadsheet would run it as a formula."""
    return QUOTE + text if text.startswith(FORMULA_STARTS) else text


def safe_strings(data: Tabular) -> Tabular:
    """A table (or batch) with `safe_text` applied to every value of its text columns; other
    columns, and nulls, as they are. Apply it before numbers are turned into text."""
    columns = [
        _safe_column(column, field.type) if _is_text(field.type) else column
        for column, field in zip(data.columns, data.schema, strict=True)
    ]
    return type(data).from_arrays(columns, schema=data.schema)


def _is_text(kind: pa.DataType) -> bool:
    return (
        pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind)
    )


def _safe_column(column: pa.Array | pa.ChunkedArray, kind: pa.DataType) -> Any:
    work = pa.large_string() if pa.types.is_string_view(kind) else kind
    text = column.cast(work)
    runs = pc.match_substring_regex(text, _STARTS_PATTERN)
    quoted = pc.binary_join_element_wise(pa.scalar(QUOTE, work), text, pa.scalar("", work))
    return pc.if_else(runs, quoted, text).cast(kind)
