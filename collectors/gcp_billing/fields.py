"""Field types of the detailed usage cost export that are not strings.

From the export's BigQuery schema (`gcp_billing_export_resource_v1`): FLOAT and NUMERIC
fields are read as exact decimals, TIMESTAMP fields as naive UTC datetimes. Every other
field is a string, a record or a repeated record.
"""

NUMERIC_FIELDS = frozenset(
    {
        "cost",
        "currency_conversion_rate",
        "cost_at_list",
        "cost_at_effective_price_default",
        "cost_at_list_consumption_model",
        "usage.amount",
        "usage.amount_in_pricing_units",
        "credits.amount",
        "price.effective_price",
        "price.tier_start_amount",
        "price.pricing_unit_quantity",
        "price.list_price",
        "price.effective_price_default",
        "price.list_price_consumption_model",
    }
)
TIMESTAMP_FIELDS = frozenset({"usage_start_time", "usage_end_time", "export_time"})
BOOLEAN_FIELDS = frozenset({"tags.inherited"})

# Top-level fields this reader knows; anything else is kept as JSON in `extra_fields`.
KNOWN_TOP_LEVEL = frozenset(
    {
        "billing_account_id",
        "service",
        "sku",
        "usage_start_time",
        "usage_end_time",
        "project",
        "labels",
        "system_labels",
        "location",
        "resource",
        "tags",
        "price",
        "subscription",
        "transaction_type",
        "seller_name",
        "export_time",
        "cost",
        "currency",
        "currency_conversion_rate",
        "usage",
        "credits",
        "invoice",
        "cost_type",
        "adjustment_info",
        "cost_at_list",
        "consumption_model",
        "cost_at_effective_price_default",
        "cost_at_list_consumption_model",
    }
)
