"""The in-place read's model is what its generator writes from the export schema, and the
generator follows the schema: a field added to it is checked and hashed like the others, and
a row carrying it then has the per-row normaliser's row id."""

from __future__ import annotations

from datetime import UTC, datetime

import pyarrow as pa
import pytest

from flopledger.collectors.gcp_billing.columnar import limit_params, sku_lookups
from flopledger.collectors.gcp_billing.normalise import normalise
from flopledger.collectors.gcp_billing.schema import EXPORT_FIELDS, ExportField, arrow_type
from flopledger.collectors.limits import DEFAULT_LIMITS
from flopledger.ingest.gcp_billing.in_place import MODEL, SQL
from flopledger.ingest.gcp_billing.in_place_sql import GENERATED, render
from flopledger.warehouse.arrow_sql import ArrowSQL

NOW = datetime(2026, 11, 1)
# A record Google might add: a float (FLOAT, as cost) and a string in it.
CARBON = ExportField(
    "carbon_footprint",
    "RECORD",
    "NULLABLE",
    (ExportField("kg", "FLOAT", "NULLABLE"), ExportField("scope", "STRING", "NULLABLE")),
)
WITH_CARBON = (*EXPORT_FIELDS, CARBON)


@pytest.mark.parametrize("name", GENERATED)
def test_each_generated_file_is_what_the_generator_writes(name: str) -> None:
    assert render(name) == SQL.path(name).read_text(), (
        f"ingest/gcp_billing/sql/{name}.sql is not what its generator writes: run "
        "`.venv/bin/python -m flopledger.ingest.gcp_billing.in_place_sql` (and edit "
        "in_place_sql.py, not the file)"
    )


def test_an_added_float_is_in_every_place_cost_at_list_consumption_model_is() -> None:
    """carbon_footprint.kg is a FLOAT as cost_at_list_consumption_model is: the same places
    name it (its text, its normalised text, its shortest-text check, its canonical member),
    and its record's string is where invoice.publisher_type's is (every string's
    characters, the canonical member)."""
    sql = render(MODEL, WITH_CARBON)
    for column in ("t_", "n_"):
        assert sql.count(f"{column}carbon_footprint_kg") == sql.count(
            f"{column}cost_at_list_consumption_model"
        )
    assert sql.count("e.carbon_footprint.kg") == sql.count("e.cost_at_list_consumption_model")
    assert sql.count("e.carbon_footprint.scope") == sql.count("e.invoice.publisher_type") == 2
    assert "e.carbon_footprint" not in render(MODEL)


def _export_row(fields: tuple[ExportField, ...]) -> pa.Table:
    """One export row, typed as the export table has it (every field not set is null, every
    list empty: BigQuery's repeated fields are never null)."""
    row = {f.name: [] if f.mode == "REPEATED" else None for f in fields} | {
        "service": {"id": "6F81-5844-456A", "description": "Compute Engine"},
        "sku": {"id": "X", "description": "Nvidia H100 80GB GPU running in Americas"},
        "usage_start_time": datetime(2026, 10, 1, tzinfo=UTC),
        "usage_end_time": datetime(2026, 10, 1, 1, tzinfo=UTC),
        "project": {"id": "ml-prod", "labels": [], "ancestors": []},
        "cost": 12.5,
        "currency": "USD",
        "usage": {"amount": 3600.0, "unit": "seconds"},
        "carbon_footprint": {"kg": 0.25, "scope": "location-based"},
    }
    schema = pa.schema([pa.field(f.name, arrow_type(f)) for f in fields])
    return pa.Table.from_pylist([{k: row[k] for k in schema.names}], schema=schema)


def _model(fields: tuple[ExportField, ...], export: pa.Table) -> dict:
    skus, units = sku_lookups([("Compute Engine", "Nvidia H100 80GB GPU running in Americas")])
    with ArrowSQL(threads=1) as engine:
        for table, data in (("billing_export", export), ("skus", skus), ("units", units)):
            engine.register(table, data)
        params = {**limit_params(NOW, DEFAULT_LIMITS), "source": "s"}
        (row,) = engine.run(render(MODEL, fields), params).to_pylist()
    return row


def test_a_row_with_an_added_field_has_the_normalisers_row_id_once_the_schema_has_it() -> None:
    """The export table has a column Google added: today's model leaves it out of the row id
    (so in_place.py's schema_is_known reads such a table out instead); rendered with the
    field, the model's row id is the per-row normaliser's, the field in it."""
    export = _export_row(WITH_CARBON)
    (record,) = export.to_pylist()
    want = normalise(record, "s", 0, NOW)["row_id"]
    today, rendered = _model(EXPORT_FIELDS, export), _model(WITH_CARBON, export)
    assert today["plain"] and today["row_id"] != want
    assert rendered["plain"] and rendered["row_id"] == want
    assert (rendered["cost"], rendered["usage_amount"]) == (12.5, 3600)  # the row's
