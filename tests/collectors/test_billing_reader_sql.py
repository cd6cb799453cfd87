"""The columnar reader's SQL files are what their generator writes from the export schema, and
the generator follows the schema: a field added to it is parsed, checked and hashed like the
others, and a line carrying it is then taken with the per-row reader's row id."""

from __future__ import annotations

import json
from datetime import datetime

import pyarrow as pa
import pytest

from flopledger.collectors.gcp_billing.canonical import row_id
from flopledger.collectors.gcp_billing.columnar import SQL, limit_params, sku_lookups
from flopledger.collectors.gcp_billing.reader_sql import GENERATED, render
from flopledger.collectors.gcp_billing.schema import EXPORT_FIELDS, ExportField
from flopledger.collectors.limits import DEFAULT_LIMITS
from flopledger.warehouse.arrow_sql import ArrowSQL
from tests.conftest import billing_row

NOW = datetime(2026, 11, 1)
# A record Google might add: a number (NUMERIC, as the prices) and a string in it.
CARBON = ExportField(
    "carbon_footprint",
    "RECORD",
    "NULLABLE",
    (ExportField("kg", "NUMERIC", "NULLABLE"), ExportField("scope", "STRING", "NULLABLE")),
)
WITH_CARBON = (*EXPORT_FIELDS, CARBON)


@pytest.mark.parametrize("name", GENERATED)
def test_each_generated_file_is_what_the_generator_writes(name: str) -> None:
    assert render(name) == SQL.path(name).read_text(), (
        f"collectors/gcp_billing/sql/{name}.sql is not what its generator writes: run "
        "`.venv/bin/python -m flopledger.collectors.gcp_billing.reader_sql` (and edit "
        "reader_sql.py, not the file)"
    )


def test_an_added_number_is_in_every_place_a_price_is() -> None:
    """carbon_footprint.kg is a NUMERIC in a record, as price.tier_start_amount is: the same
    places name it (its parse as JSON, its text, its plain-number and digits checks, its
    canonical member), and its record's string is where invoice.publisher_type's is."""
    sql = render("billing_extract_lines", WITH_CARBON)
    # its text 1, the plain-number check 2, the digits check 1, the canonical member 6 (the
    # normalised text names it three times, twice): 10
    assert sql.count("n_price_tier_start_amount") == 10
    assert sql.count("n_carbon_footprint_kg") == 10
    assert sql.count("r.carbon_footprint.scope") == sql.count("r.invoice.publisher_type") == 1
    assert '"carbon_footprint":{"kg":"JSON","scope":"VARCHAR"}}' in sql  # the shape's last
    # members sorted: after billing_account_id, before consumption_model
    members = [sql.index(f"'\"{key}\":' ||") for key in ("billing_account_id", "carbon_footprint")]
    assert members[0] < members[1] < sql.index("'\"consumption_model\":' ||")
    assert sql.count("nullif(trim(CAST(r.carbon_footprint.kg AS VARCHAR)") == 1
    # the record's keys are checked for duplicates, as every record's are
    assert "'$.carbon_footprint'" not in render("billing_macros")
    assert "'$.carbon_footprint'" in render("billing_macros", WITH_CARBON)
    assert "'kg': CAST(carbon_footprint.kg AS VARCHAR)," in render(
        "billing_parquet_lines", WITH_CARBON
    )


def _line(record: dict) -> pa.Table:
    text = json.dumps(record, separators=(",", ":"))
    return pa.table({"source": ["a.ndjson"], "line": [1], "text": [text]})


def _read(fields: tuple[ExportField, ...], record: dict) -> dict:
    """The one line's row as the statement rendered from `fields` writes it."""
    skus, units = sku_lookups([(record["service"]["description"], record["sku"]["description"])])
    with ArrowSQL(threads=1) as engine:
        engine.define(render("billing_macros", fields))
        for table, data in (("lines", _line(record)), ("skus", skus), ("units", units)):
            engine.register(table, data)
        statement = render("billing_extract_lines", fields)
        out = engine.run(statement.replace("WHERE plain", ""), limit_params(NOW, DEFAULT_LIMITS))
    (row,) = out.to_pylist()
    return row


def test_a_line_with_an_added_field_is_taken_once_the_schema_has_it() -> None:
    """Today's statement leaves a line with a field it does not know to the per-row reader
    (its JSON written back is not the line); rendered with the field, it takes the line
    itself, the field in the row id exactly as the per-row reader's canonical text has it."""
    record = {f.name: None for f in EXPORT_FIELDS} | billing_row()
    record["carbon_footprint"] = {"kg": "1.5", "scope": "location-based"}
    assert not _read(EXPORT_FIELDS, record)["plain"]
    row = _read(WITH_CARBON, record)
    assert row["plain"] and row["row_id"] == row_id(record)
    assert (row["cost"], row["project_id"]) == (10, "ml-prod")  # billing_row's
