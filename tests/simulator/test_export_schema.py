"""The one definition of the billing export's schema, which the simulator writes extracts from."""

from __future__ import annotations

import json
from typing import Any

from flopledger.collectors.gcp_billing.fields import (
    BOOLEAN_FIELDS,
    KNOWN_TOP_LEVEL,
    NUMERIC_FIELDS,
    TIMESTAMP_FIELDS,
)
from flopledger.collectors.gcp_billing.schema import (
    EXPORT_FIELDS,
    EXPORT_PARQUET_SCHEMA,
    ExportField,
)
from tests.conftest import FIXTURES

SCHEMA_JSON = FIXTURES / "gcp_billing_export" / "gcp_billing_export_resource_v1.schema.json"


def _as_json(field: ExportField) -> dict[str, Any]:
    out: dict[str, Any] = {"name": field.name, "type": field.type, "mode": field.mode}
    if field.fields:
        out["fields"] = [_as_json(f) for f in field.fields]
    return out


def _bare(field: dict[str, Any]) -> dict[str, Any]:
    """A JSON schema field without its description."""
    out = {k: field[k] for k in ("name", "type", "mode")}
    if field.get("fields"):
        out["fields"] = [_bare(f) for f in field["fields"]]
    return out


def _dotted(fields: tuple[ExportField, ...], kinds: set[str], prefix: str = "") -> set[str]:
    found = set()
    for f in fields:
        if f.type in kinds:
            found.add(prefix + f.name)
        found |= _dotted(f.fields, kinds, f"{prefix}{f.name}.")
    return found


def test_export_fields_are_the_bigquery_schema_field_by_field() -> None:
    expected = [_bare(f) for f in json.loads(SCHEMA_JSON.read_text())]
    assert [_as_json(f) for f in EXPORT_FIELDS] == expected


def test_the_collector_reads_the_types_the_simulator_writes() -> None:
    # collectors/gcp_billing/fields.py parses FLOAT and NUMERIC as decimals, TIMESTAMP as times.
    assert _dotted(EXPORT_FIELDS, {"FLOAT", "NUMERIC"}) == NUMERIC_FIELDS
    assert _dotted(EXPORT_FIELDS, {"TIMESTAMP"}) == TIMESTAMP_FIELDS
    assert _dotted(EXPORT_FIELDS, {"BOOLEAN"}) == BOOLEAN_FIELDS
    assert {f.name for f in EXPORT_FIELDS} == KNOWN_TOP_LEVEL


def test_parquet_schema_types() -> None:
    # BigQuery's Parquet extract: NUMERIC is decimal(38, 9), TIMESTAMP is UTC microseconds.
    assert str(EXPORT_PARQUET_SCHEMA.field("cost").type) == "double"
    assert str(EXPORT_PARQUET_SCHEMA.field("usage_start_time").type) == "timestamp[us, tz=UTC]"
    price = EXPORT_PARQUET_SCHEMA.field("price").type
    assert str(price.field("effective_price").type) == "decimal128(38, 9)"
    # REPEATED RECORD: a list of structs.
    assert str(EXPORT_PARQUET_SCHEMA.field("credits").type) == (
        "list<item: struct<name: string, amount: double, full_name: string, id: string, type: string>>"
    )
