-- @query: The in-place read's new rows into billing_line_items: the plain rows of the run's days
--   whose row id is not there yet, each id once (the same rule as insert_new). No row leaves
--   the warehouse's engine.
-- @param first_day: the run's first usage day (0001-01-01: every day)
-- @param last_day: the run's last usage day (9999-12-31: every day)
INSERT INTO billing_line_items (
    row_id, usage_day, usage_start, usage_end, export_time, provider, billing_account_id,
    project_id, project_number, project_name, service_id, service_name, sku_id,
    sku_description, resource_name, resource_global_name, location, country, region, zone,
    usage_amount, usage_unit, usage_amount_in_pricing_units, usage_pricing_unit, cost,
    credits_total, credits, cost_at_list, currency, currency_conversion_rate, cost_usd,
    credits_total_usd, cost_at_list_usd, cost_type, adjustment_type, adjustment_mode,
    invoice_month, transaction_type, labels, system_labels, project_labels, accelerator_type,
    accelerator_seconds, pricing_model, sku_kind, is_commitment_fee, commitment_term, network_traffic,
    is_egress, extra_fields, source, source_line, ingested_at
)
SELECT
    row_id, usage_day, usage_start, usage_end, export_time, provider, billing_account_id,
    project_id, project_number, project_name, service_id, service_name, sku_id,
    sku_description, resource_name, resource_global_name, location, country, region, zone,
    usage_amount, usage_unit, usage_amount_in_pricing_units, usage_pricing_unit, cost,
    credits_total, credits, cost_at_list, currency, currency_conversion_rate, cost_usd,
    credits_total_usd, cost_at_list_usd, cost_type, adjustment_type, adjustment_mode,
    invoice_month, transaction_type, labels, system_labels, project_labels, accelerator_type,
    accelerator_seconds, pricing_model, sku_kind, is_commitment_fee, commitment_term, network_traffic,
    is_egress, extra_fields, source, source_line, ingested_at
FROM billing_export_normalised
WHERE plain
  AND usage_day BETWEEN $first_day AND $last_day
  AND row_id NOT IN (SELECT row_id FROM billing_line_items)
QUALIFY row_number() OVER (PARTITION BY row_id ORDER BY row_id) = 1
