"""The `billing_line_items` raw table as Arrow (kept in step with models/raw/billing_line_items.sql)."""

import pyarrow as pa

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
        ("extra_fields", pa.string()),
        ("source", pa.string()),
        ("source_line", pa.int64()),
        ("ingested_at", pa.timestamp("us")),
    ]
)
