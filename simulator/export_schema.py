"""The detailed usage cost export's BigQuery schema (`gcp_billing_export_resource_v1`), as data.

Copied field by field from shared/data/formats/gcp_billing_export/gcp_billing_export_resource_v1.schema.json
(a test checks the copy against it). The Parquet schema of the extracts is built from it.
"""

from __future__ import annotations

from typing import NamedTuple

import pyarrow as pa


class F(NamedTuple):
    name: str
    type: str  # STRING, FLOAT, NUMERIC, TIMESTAMP, BOOLEAN, RECORD
    mode: str  # NULLABLE or REPEATED
    fields: tuple[F, ...] = ()


EXPORT_FIELDS: tuple[F, ...] = (
    F("billing_account_id", "STRING", "NULLABLE"),
    F("service", "RECORD", "NULLABLE", (
        F("id", "STRING", "NULLABLE"),
        F("description", "STRING", "NULLABLE"),
    )),
    F("sku", "RECORD", "NULLABLE", (
        F("id", "STRING", "NULLABLE"),
        F("description", "STRING", "NULLABLE"),
    )),
    F("usage_start_time", "TIMESTAMP", "NULLABLE"),
    F("usage_end_time", "TIMESTAMP", "NULLABLE"),
    F("project", "RECORD", "NULLABLE", (
        F("id", "STRING", "NULLABLE"),
        F("number", "STRING", "NULLABLE"),
        F("name", "STRING", "NULLABLE"),
        F("labels", "RECORD", "REPEATED", (
            F("key", "STRING", "NULLABLE"),
            F("value", "STRING", "NULLABLE"),
        )),
        F("ancestry_numbers", "STRING", "NULLABLE"),
        F("ancestors", "RECORD", "REPEATED", (
            F("resource_name", "STRING", "NULLABLE"),
            F("display_name", "STRING", "NULLABLE"),
        )),
    )),
    F("labels", "RECORD", "REPEATED", (
        F("key", "STRING", "NULLABLE"),
        F("value", "STRING", "NULLABLE"),
    )),
    F("system_labels", "RECORD", "REPEATED", (
        F("key", "STRING", "NULLABLE"),
        F("value", "STRING", "NULLABLE"),
    )),
    F("location", "RECORD", "NULLABLE", (
        F("location", "STRING", "NULLABLE"),
        F("country", "STRING", "NULLABLE"),
        F("region", "STRING", "NULLABLE"),
        F("zone", "STRING", "NULLABLE"),
    )),
    F("resource", "RECORD", "NULLABLE", (
        F("name", "STRING", "NULLABLE"),
        F("global_name", "STRING", "NULLABLE"),
    )),
    F("tags", "RECORD", "REPEATED", (
        F("key", "STRING", "NULLABLE"),
        F("value", "STRING", "NULLABLE"),
        F("inherited", "BOOLEAN", "NULLABLE"),
        F("namespace", "STRING", "NULLABLE"),
    )),
    F("price", "RECORD", "NULLABLE", (
        F("effective_price", "NUMERIC", "NULLABLE"),
        F("tier_start_amount", "NUMERIC", "NULLABLE"),
        F("unit", "STRING", "NULLABLE"),
        F("pricing_unit_quantity", "NUMERIC", "NULLABLE"),
        F("list_price", "NUMERIC", "NULLABLE"),
        F("effective_price_default", "NUMERIC", "NULLABLE"),
        F("list_price_consumption_model", "NUMERIC", "NULLABLE"),
    )),
    F("subscription", "RECORD", "NULLABLE", (
        F("instance_id", "STRING", "NULLABLE"),
    )),
    F("transaction_type", "STRING", "NULLABLE"),
    F("seller_name", "STRING", "NULLABLE"),
    F("export_time", "TIMESTAMP", "NULLABLE"),
    F("cost", "FLOAT", "NULLABLE"),
    F("currency", "STRING", "NULLABLE"),
    F("currency_conversion_rate", "FLOAT", "NULLABLE"),
    F("usage", "RECORD", "NULLABLE", (
        F("amount", "FLOAT", "NULLABLE"),
        F("unit", "STRING", "NULLABLE"),
        F("amount_in_pricing_units", "FLOAT", "NULLABLE"),
        F("pricing_unit", "STRING", "NULLABLE"),
    )),
    F("credits", "RECORD", "REPEATED", (
        F("name", "STRING", "NULLABLE"),
        F("amount", "FLOAT", "NULLABLE"),
        F("full_name", "STRING", "NULLABLE"),
        F("id", "STRING", "NULLABLE"),
        F("type", "STRING", "NULLABLE"),
    )),
    F("invoice", "RECORD", "NULLABLE", (
        F("month", "STRING", "NULLABLE"),
        F("publisher_type", "STRING", "NULLABLE"),
    )),
    F("cost_type", "STRING", "NULLABLE"),
    F("adjustment_info", "RECORD", "NULLABLE", (
        F("id", "STRING", "NULLABLE"),
        F("description", "STRING", "NULLABLE"),
        F("mode", "STRING", "NULLABLE"),
        F("type", "STRING", "NULLABLE"),
    )),
    F("cost_at_list", "FLOAT", "NULLABLE"),
    F("consumption_model", "RECORD", "NULLABLE", (
        F("id", "STRING", "NULLABLE"),
        F("description", "STRING", "NULLABLE"),
        F("applied_subscription_instance_id", "STRING", "NULLABLE"),
    )),
    F("cost_at_effective_price_default", "FLOAT", "NULLABLE"),
    F("cost_at_list_consumption_model", "FLOAT", "NULLABLE"),
)

_SCALARS = {
    "STRING": pa.string(),
    "FLOAT": pa.float64(),
    "NUMERIC": pa.decimal128(38, 9),
    "TIMESTAMP": pa.timestamp("us", tz="UTC"),
    "BOOLEAN": pa.bool_(),
    "INTEGER": pa.int64(),
}


def arrow_type(field: F) -> pa.DataType:
    """The Arrow type a BigQuery Parquet extract writes for a field (REPEATED: a list of it)."""
    if field.type == "RECORD":
        base: pa.DataType = pa.struct([pa.field(f.name, arrow_type(f)) for f in field.fields])
    else:
        base = _SCALARS[field.type]
    return pa.list_(base) if field.mode == "REPEATED" else base


PARQUET_SCHEMA = pa.schema([pa.field(f.name, arrow_type(f)) for f in EXPORT_FIELDS])
