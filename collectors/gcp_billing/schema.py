"""The billing data's shapes, as data: the export the collector reads and the table it writes.

- `EXPORT_FIELDS`: the detailed usage cost export's BigQuery schema
  (`gcp_billing_export_resource_v1`), copied field by field from
  shared/data/formats/gcp_billing_export/gcp_billing_export_resource_v1.schema.json (a test
  checks the copy against it), and `EXPORT_PARQUET_SCHEMA`, the Arrow schema a BigQuery
  Parquet extract of it has. The fleet simulator writes its extracts from these.
- `BILLING_SCHEMA`: the `billing_line_items` raw table as Arrow (kept in step with
  models/raw/billing_line_items.sql).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

import pyarrow as pa


class ExportField(NamedTuple):
    name: str
    type: str  # STRING, FLOAT, NUMERIC, TIMESTAMP, BOOLEAN, RECORD
    mode: str  # NULLABLE or REPEATED
    fields: tuple[ExportField, ...] = ()


_F = ExportField  # short, so the nesting below reads like the JSON schema

# fmt: off
EXPORT_FIELDS: tuple[ExportField, ...] = (
    _F("billing_account_id", "STRING", "NULLABLE"),
    _F("service", "RECORD", "NULLABLE", (
        _F("id", "STRING", "NULLABLE"),
        _F("description", "STRING", "NULLABLE"),
    )),
    _F("sku", "RECORD", "NULLABLE", (
        _F("id", "STRING", "NULLABLE"),
        _F("description", "STRING", "NULLABLE"),
    )),
    _F("usage_start_time", "TIMESTAMP", "NULLABLE"),
    _F("usage_end_time", "TIMESTAMP", "NULLABLE"),
    _F("project", "RECORD", "NULLABLE", (
        _F("id", "STRING", "NULLABLE"),
        _F("number", "STRING", "NULLABLE"),
        _F("name", "STRING", "NULLABLE"),
        _F("labels", "RECORD", "REPEATED", (
            _F("key", "STRING", "NULLABLE"),
            _F("value", "STRING", "NULLABLE"),
        )),
        _F("ancestry_numbers", "STRING", "NULLABLE"),
        _F("ancestors", "RECORD", "REPEATED", (
            _F("resource_name", "STRING", "NULLABLE"),
            _F("display_name", "STRING", "NULLABLE"),
        )),
    )),
    _F("labels", "RECORD", "REPEATED", (
        _F("key", "STRING", "NULLABLE"),
        _F("value", "STRING", "NULLABLE"),
    )),
    _F("system_labels", "RECORD", "REPEATED", (
        _F("key", "STRING", "NULLABLE"),
        _F("value", "STRING", "NULLABLE"),
    )),
    _F("location", "RECORD", "NULLABLE", (
        _F("location", "STRING", "NULLABLE"),
        _F("country", "STRING", "NULLABLE"),
        _F("region", "STRING", "NULLABLE"),
        _F("zone", "STRING", "NULLABLE"),
    )),
    _F("resource", "RECORD", "NULLABLE", (
        _F("name", "STRING", "NULLABLE"),
        _F("global_name", "STRING", "NULLABLE"),
    )),
    _F("tags", "RECORD", "REPEATED", (
        _F("key", "STRING", "NULLABLE"),
        _F("value", "STRING", "NULLABLE"),
        _F("inherited", "BOOLEAN", "NULLABLE"),
        _F("namespace", "STRING", "NULLABLE"),
    )),
    _F("price", "RECORD", "NULLABLE", (
        _F("effective_price", "NUMERIC", "NULLABLE"),
        _F("tier_start_amount", "NUMERIC", "NULLABLE"),
        _F("unit", "STRING", "NULLABLE"),
        _F("pricing_unit_quantity", "NUMERIC", "NULLABLE"),
        _F("list_price", "NUMERIC", "NULLABLE"),
        _F("effective_price_default", "NUMERIC", "NULLABLE"),
        _F("list_price_consumption_model", "NUMERIC", "NULLABLE"),
    )),
    _F("subscription", "RECORD", "NULLABLE", (
        _F("instance_id", "STRING", "NULLABLE"),
    )),
    _F("transaction_type", "STRING", "NULLABLE"),
    _F("seller_name", "STRING", "NULLABLE"),
    _F("export_time", "TIMESTAMP", "NULLABLE"),
    _F("cost", "FLOAT", "NULLABLE"),
    _F("currency", "STRING", "NULLABLE"),
    _F("currency_conversion_rate", "FLOAT", "NULLABLE"),
    _F("usage", "RECORD", "NULLABLE", (
        _F("amount", "FLOAT", "NULLABLE"),
        _F("unit", "STRING", "NULLABLE"),
        _F("amount_in_pricing_units", "FLOAT", "NULLABLE"),
        _F("pricing_unit", "STRING", "NULLABLE"),
    )),
    _F("credits", "RECORD", "REPEATED", (
        _F("name", "STRING", "NULLABLE"),
        _F("amount", "FLOAT", "NULLABLE"),
        _F("full_name", "STRING", "NULLABLE"),
        _F("id", "STRING", "NULLABLE"),
        _F("type", "STRING", "NULLABLE"),
    )),
    _F("invoice", "RECORD", "NULLABLE", (
        _F("month", "STRING", "NULLABLE"),
        _F("publisher_type", "STRING", "NULLABLE"),
    )),
    _F("cost_type", "STRING", "NULLABLE"),
    _F("adjustment_info", "RECORD", "NULLABLE", (
        _F("id", "STRING", "NULLABLE"),
        _F("description", "STRING", "NULLABLE"),
        _F("mode", "STRING", "NULLABLE"),
        _F("type", "STRING", "NULLABLE"),
    )),
    _F("cost_at_list", "FLOAT", "NULLABLE"),
    _F("consumption_model", "RECORD", "NULLABLE", (
        _F("id", "STRING", "NULLABLE"),
        _F("description", "STRING", "NULLABLE"),
        _F("applied_subscription_instance_id", "STRING", "NULLABLE"),
    )),
    _F("cost_at_effective_price_default", "FLOAT", "NULLABLE"),
    _F("cost_at_list_consumption_model", "FLOAT", "NULLABLE"),
)
# fmt: on

_SCALARS: Mapping[str, pa.DataType] = MappingProxyType(
    {
        "STRING": pa.string(),
        "FLOAT": pa.float64(),
        "NUMERIC": pa.decimal128(38, 9),
        "TIMESTAMP": pa.timestamp("us", tz="UTC"),
        "BOOLEAN": pa.bool_(),
        "INTEGER": pa.int64(),
    }
)


def arrow_type(field: ExportField) -> pa.DataType:
    """The Arrow type a BigQuery Parquet extract writes for a field (REPEATED: a list of it)."""
    if field.type == "RECORD":
        base: pa.DataType = pa.struct([pa.field(f.name, arrow_type(f)) for f in field.fields])
    else:
        base = _SCALARS[field.type]
    return pa.list_(base) if field.mode == "REPEATED" else base


EXPORT_PARQUET_SCHEMA = pa.schema([pa.field(f.name, arrow_type(f)) for f in EXPORT_FIELDS])

# The raw table.
MONEY = pa.decimal128(38, 9)
LABELS = pa.map_(pa.string(), pa.string())
CREDIT = pa.struct(
    [
        ("name", pa.string()),
        ("amount", MONEY),
        ("full_name", pa.string()),
        ("id", pa.string()),
        ("type", pa.string()),
    ]
)

BILLING_SCHEMA = pa.schema(
    [
        ("row_id", pa.string()),
        ("usage_day", pa.date32()),
        ("usage_start", pa.timestamp("us")),
        ("usage_end", pa.timestamp("us")),
        ("export_time", pa.timestamp("us")),
        ("provider", pa.string()),
        ("billing_account_id", pa.string()),
        ("project_id", pa.string()),
        ("project_number", pa.string()),
        ("project_name", pa.string()),
        ("service_id", pa.string()),
        ("service_name", pa.string()),
        ("sku_id", pa.string()),
        ("sku_description", pa.string()),
        ("resource_name", pa.string()),
        ("resource_global_name", pa.string()),
        ("location", pa.string()),
        ("country", pa.string()),
        ("region", pa.string()),
        ("zone", pa.string()),
        ("usage_amount", MONEY),
        ("usage_unit", pa.string()),
        ("usage_amount_in_pricing_units", MONEY),
        ("usage_pricing_unit", pa.string()),
        ("cost", MONEY),
        ("credits_total", MONEY),
        ("credits", pa.list_(CREDIT)),
        ("cost_at_list", MONEY),
        ("currency", pa.string()),
        ("currency_conversion_rate", pa.decimal128(38, 18)),
        ("cost_usd", MONEY),
        ("credits_total_usd", MONEY),
        ("cost_at_list_usd", MONEY),
        ("cost_type", pa.string()),
        ("adjustment_type", pa.string()),
        ("adjustment_mode", pa.string()),
        ("invoice_month", pa.string()),
        ("transaction_type", pa.string()),
        ("labels", LABELS),
        ("system_labels", LABELS),
        ("project_labels", LABELS),
        ("accelerator_type", pa.string()),
        ("accelerator_seconds", MONEY),
        ("pricing_model", pa.string()),
        ("sku_kind", pa.string()),
        ("is_commitment_fee", pa.bool_()),
        ("commitment_term", pa.string()),
        ("network_traffic", pa.string()),
        ("is_egress", pa.bool_()),
        ("extra_fields", pa.string()),
        ("source", pa.string()),
        ("source_line", pa.int64()),
        ("ingested_at", pa.timestamp("us")),
    ]
)
