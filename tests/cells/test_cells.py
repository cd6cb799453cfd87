"""The one rule for a text cell of a CSV flopledger writes (cells/): a text a spreadsheet would
run as a formula (it starts with =, +, -, @, a tab or a carriage return) gets a leading `'`;
any other text, a null and every number are as they are, in a table or a batch, whatever the
Arrow text type."""

from __future__ import annotations

from decimal import Decimal

import pyarrow as pa
import pytest

from flopledger.cells import safe_strings, safe_text

HOSTILE = ['=HYPERLINK("http://x.invalid","click")', "@SUM(A1:A9)", "+1", "-vm", "\tx", "\rx"]


def test_each_formula_start_is_quoted_and_other_text_is_not() -> None:
    assert [safe_text(t) for t in HOSTILE] == [
        '\'=HYPERLINK("http://x.invalid","click")',
        "'@SUM(A1:A9)",
        "'+1",
        "'-vm",
        "'\tx",
        "'\rx",
    ]
    # A formula start later in the text, a leading blank, an empty text: as they are.
    assert [safe_text(t) for t in ["a=b", " =1", "", "search"]] == ["a=b", " =1", "", "search"]


@pytest.mark.parametrize("kind", [pa.string(), pa.large_string(), pa.string_view()])
def test_a_table_and_a_batch_have_their_text_quoted_and_numbers_kept(kind: pa.DataType) -> None:
    table = pa.table(
        {
            "team": pa.array(["=1+1", "search", None], kind),
            "cost": pa.array([Decimal("-8.32"), Decimal("1"), None], pa.decimal128(38, 9)),
            "runs": pa.array([-1, 2, 3], pa.int64()),
        }
    )
    for data in (table, table.to_batches()[0]):
        safe = safe_strings(data)
        assert type(safe) is type(data) and safe.schema == data.schema
        assert safe.column(0).to_pylist() == ["'=1+1", "search", None]
        assert safe.column(1).to_pylist() == [Decimal("-8.32"), Decimal("1"), None]
        assert safe.column(2).to_pylist() == [-1, 2, 3]
