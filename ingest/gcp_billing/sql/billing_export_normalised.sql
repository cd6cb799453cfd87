-- @query: One row per export row: the `billing_line_items` row the per-row normaliser
-- (collectors/gcp_billing/normalise.py) would write for it, computed where the export lies
-- (the billing export read in place, docs/bigquery.md), `plain`, and the row itself
-- (`export_row`). A row is plain when this statement can prove its columns are exactly the
-- normaliser's: every string printable ASCII without a quote or a backslash (so the canonical
-- text needs no JSON escaping), every number written as a plain decimal that reads back as the
-- same FLOAT64 and is the shortest text that does (the normaliser's repr), money with at most 9 places
-- (the rate at most 18), times, money, usage and labels within every check and limit, the SKU
-- classified. Every other row is handed, by its `export_row`, to the per-row normaliser, which
-- loads it or quarantines it with its reason; a non-plain row's other columns mean nothing.
-- row_id is the sha256 of the canonical text collectors/gcp_billing/canonical.py writes (keys
-- sorted, empty values left out, numbers as Decimal.normalize() in fixed point, times in ISO
-- 8601); USD is amount / rate rounded half to even to 9 places in integer nano-units
-- (collectors/money.py's to_usd). Written by ingest/gcp_billing/in_place_sql.py from the
-- export schema (collectors/gcp_billing/schema.py): change the generator, not this file, and
-- run `python -m flopledger.ingest.gcp_billing.in_place_sql` (tests/ingest/
-- test_in_place_sql.py checks the two agree). In DuckDB's dialect like the models;
-- warehouse/transpile.py makes it BigQuery's. tests/warehouse/
-- test_bigquery_warehouse_in_place.py checks it row for row against the normaliser on both
-- engines.
-- Tables: billing_export (the export table's rows, typed as Google's export schema has them:
-- on BigQuery the bounded read models/bigquery/billing_export_rows, put in its place at
-- run time), skus (collectors/gcp_billing/columnar.py's sku_lookups: what collectors/skus.py
-- says of each (service_name, sku_description) pair the read names), units (unit,
-- seconds_per_unit).
-- @param earliest: limits.earliest
-- @param latest: limits.latest
-- @param max_money: limits.max_money (as text or a decimal: cast here, as bqemulator types a NUMERIC parameter DECIMAL(18, 3))
-- @param max_usage: limits.max_usage
-- @param max_accelerator_seconds: limits.max_accelerator_seconds
-- @param max_span_us: limits.max_row_span in microseconds
-- @param ingested_at: the run's clock
-- @param source: the rows' source (`bigquery:` and the export table)
WITH texts AS (
    SELECT
        e,
        CAST(e.price.effective_price AS VARCHAR) AS t_price_effective_price,
        CAST(e.price.tier_start_amount AS VARCHAR) AS t_price_tier_start_amount,
        CAST(e.price.pricing_unit_quantity AS VARCHAR) AS t_price_pricing_unit_quantity,
        CAST(e.price.list_price AS VARCHAR) AS t_price_list_price,
        CAST(e.price.effective_price_default AS VARCHAR) AS t_price_effective_price_default,
        CAST(e.price.list_price_consumption_model AS VARCHAR) AS t_price_list_price_consumption_model,
        CAST(e.cost AS VARCHAR) AS t_cost,
        CAST(e.currency_conversion_rate AS VARCHAR) AS t_currency_conversion_rate,
        CAST(e.usage.amount AS VARCHAR) AS t_usage_amount,
        CAST(e.usage.amount_in_pricing_units AS VARCHAR) AS t_usage_amount_in_pricing_units,
        CAST(e.cost_at_list AS VARCHAR) AS t_cost_at_list,
        CAST(e.cost_at_effective_price_default AS VARCHAR) AS t_cost_at_effective_price_default,
        CAST(e.cost_at_list_consumption_model AS VARCHAR) AS t_cost_at_list_consumption_model,
        CAST(e.usage_start_time AS TIMESTAMP) AS ts_usage_start_time,
        CAST(e.usage_end_time AS TIMESTAMP) AS ts_usage_end_time,
        CAST(e.export_time AS TIMESTAMP) AS ts_export_time,
        coalesce(e.billing_account_id, '') || coalesce(e.service.id, '') || coalesce(e.service.description, '') || coalesce(e.sku.id, '') || coalesce(e.sku.description, '') || coalesce(e.project.id, '') || coalesce(e.project.number, '') || coalesce(e.project.name, '') || coalesce(array_to_string(list_transform(e.project.labels, lambda x: coalesce(x.key, '') || coalesce(x.value, '')), ''), '') || coalesce(e.project.ancestry_numbers, '') || coalesce(array_to_string(list_transform(e.project.ancestors, lambda x: coalesce(x.resource_name, '') || coalesce(x.display_name, '')), ''), '') || coalesce(array_to_string(list_transform(e.labels, lambda x: coalesce(x.key, '') || coalesce(x.value, '')), ''), '') || coalesce(array_to_string(list_transform(e.system_labels, lambda x: coalesce(x.key, '') || coalesce(x.value, '')), ''), '') || coalesce(e.location.location, '') || coalesce(e.location.country, '') || coalesce(e.location.region, '') || coalesce(e.location.zone, '') || coalesce(e.resource.name, '') || coalesce(e.resource.global_name, '') || coalesce(array_to_string(list_transform(e.tags, lambda x: coalesce(x.key, '') || coalesce(x.value, '') || coalesce(x.namespace, '')), ''), '') || coalesce(e.price.unit, '') || coalesce(e.subscription.instance_id, '') || coalesce(e.transaction_type, '') || coalesce(e.seller_name, '') || coalesce(e.currency, '') || coalesce(e.usage.unit, '') || coalesce(e.usage.pricing_unit, '') || coalesce(array_to_string(list_transform(e.credits, lambda x: coalesce(x.name, '') || coalesce(x.full_name, '') || coalesce(x.id, '') || coalesce(x.type, '')), ''), '') || coalesce(e.invoice.month, '') || coalesce(e.invoice.publisher_type, '') || coalesce(e.cost_type, '') || coalesce(e.adjustment_info.id, '') || coalesce(e.adjustment_info.description, '') || coalesce(e.adjustment_info.mode, '') || coalesce(e.adjustment_info.type, '') || coalesce(e.consumption_model.id, '') || coalesce(e.consumption_model.description, '') || coalesce(e.consumption_model.applied_subscription_instance_id, '') AS all_strings,
        -- the repeated key/value records under names of their own (not the MAP columns)
        e.labels AS label_items,
        e.system_labels AS system_label_items,
        e.project.labels AS project_label_items
    FROM billing_export AS e
),
numbers AS (
    SELECT
        *,
        CASE WHEN (CASE WHEN strpos(t_price_effective_price, '.') > 0 THEN rtrim(rtrim(t_price_effective_price, '0'), '.') ELSE t_price_effective_price END) = '-0' THEN '0' ELSE (CASE WHEN strpos(t_price_effective_price, '.') > 0 THEN rtrim(rtrim(t_price_effective_price, '0'), '.') ELSE t_price_effective_price END) END AS n_price_effective_price,
        CASE WHEN (CASE WHEN strpos(t_price_tier_start_amount, '.') > 0 THEN rtrim(rtrim(t_price_tier_start_amount, '0'), '.') ELSE t_price_tier_start_amount END) = '-0' THEN '0' ELSE (CASE WHEN strpos(t_price_tier_start_amount, '.') > 0 THEN rtrim(rtrim(t_price_tier_start_amount, '0'), '.') ELSE t_price_tier_start_amount END) END AS n_price_tier_start_amount,
        CASE WHEN (CASE WHEN strpos(t_price_pricing_unit_quantity, '.') > 0 THEN rtrim(rtrim(t_price_pricing_unit_quantity, '0'), '.') ELSE t_price_pricing_unit_quantity END) = '-0' THEN '0' ELSE (CASE WHEN strpos(t_price_pricing_unit_quantity, '.') > 0 THEN rtrim(rtrim(t_price_pricing_unit_quantity, '0'), '.') ELSE t_price_pricing_unit_quantity END) END AS n_price_pricing_unit_quantity,
        CASE WHEN (CASE WHEN strpos(t_price_list_price, '.') > 0 THEN rtrim(rtrim(t_price_list_price, '0'), '.') ELSE t_price_list_price END) = '-0' THEN '0' ELSE (CASE WHEN strpos(t_price_list_price, '.') > 0 THEN rtrim(rtrim(t_price_list_price, '0'), '.') ELSE t_price_list_price END) END AS n_price_list_price,
        CASE WHEN (CASE WHEN strpos(t_price_effective_price_default, '.') > 0 THEN rtrim(rtrim(t_price_effective_price_default, '0'), '.') ELSE t_price_effective_price_default END) = '-0' THEN '0' ELSE (CASE WHEN strpos(t_price_effective_price_default, '.') > 0 THEN rtrim(rtrim(t_price_effective_price_default, '0'), '.') ELSE t_price_effective_price_default END) END AS n_price_effective_price_default,
        CASE WHEN (CASE WHEN strpos(t_price_list_price_consumption_model, '.') > 0 THEN rtrim(rtrim(t_price_list_price_consumption_model, '0'), '.') ELSE t_price_list_price_consumption_model END) = '-0' THEN '0' ELSE (CASE WHEN strpos(t_price_list_price_consumption_model, '.') > 0 THEN rtrim(rtrim(t_price_list_price_consumption_model, '0'), '.') ELSE t_price_list_price_consumption_model END) END AS n_price_list_price_consumption_model,
        CASE WHEN (CASE WHEN strpos(t_cost, '.') > 0 THEN rtrim(rtrim(t_cost, '0'), '.') ELSE t_cost END) = '-0' THEN '0' ELSE (CASE WHEN strpos(t_cost, '.') > 0 THEN rtrim(rtrim(t_cost, '0'), '.') ELSE t_cost END) END AS n_cost,
        CASE WHEN (CASE WHEN strpos(t_currency_conversion_rate, '.') > 0 THEN rtrim(rtrim(t_currency_conversion_rate, '0'), '.') ELSE t_currency_conversion_rate END) = '-0' THEN '0' ELSE (CASE WHEN strpos(t_currency_conversion_rate, '.') > 0 THEN rtrim(rtrim(t_currency_conversion_rate, '0'), '.') ELSE t_currency_conversion_rate END) END AS n_currency_conversion_rate,
        CASE WHEN (CASE WHEN strpos(t_usage_amount, '.') > 0 THEN rtrim(rtrim(t_usage_amount, '0'), '.') ELSE t_usage_amount END) = '-0' THEN '0' ELSE (CASE WHEN strpos(t_usage_amount, '.') > 0 THEN rtrim(rtrim(t_usage_amount, '0'), '.') ELSE t_usage_amount END) END AS n_usage_amount,
        CASE WHEN (CASE WHEN strpos(t_usage_amount_in_pricing_units, '.') > 0 THEN rtrim(rtrim(t_usage_amount_in_pricing_units, '0'), '.') ELSE t_usage_amount_in_pricing_units END) = '-0' THEN '0' ELSE (CASE WHEN strpos(t_usage_amount_in_pricing_units, '.') > 0 THEN rtrim(rtrim(t_usage_amount_in_pricing_units, '0'), '.') ELSE t_usage_amount_in_pricing_units END) END AS n_usage_amount_in_pricing_units,
        CASE WHEN (CASE WHEN strpos(t_cost_at_list, '.') > 0 THEN rtrim(rtrim(t_cost_at_list, '0'), '.') ELSE t_cost_at_list END) = '-0' THEN '0' ELSE (CASE WHEN strpos(t_cost_at_list, '.') > 0 THEN rtrim(rtrim(t_cost_at_list, '0'), '.') ELSE t_cost_at_list END) END AS n_cost_at_list,
        CASE WHEN (CASE WHEN strpos(t_cost_at_effective_price_default, '.') > 0 THEN rtrim(rtrim(t_cost_at_effective_price_default, '0'), '.') ELSE t_cost_at_effective_price_default END) = '-0' THEN '0' ELSE (CASE WHEN strpos(t_cost_at_effective_price_default, '.') > 0 THEN rtrim(rtrim(t_cost_at_effective_price_default, '0'), '.') ELSE t_cost_at_effective_price_default END) END AS n_cost_at_effective_price_default,
        CASE WHEN (CASE WHEN strpos(t_cost_at_list_consumption_model, '.') > 0 THEN rtrim(rtrim(t_cost_at_list_consumption_model, '0'), '.') ELSE t_cost_at_list_consumption_model END) = '-0' THEN '0' ELSE (CASE WHEN strpos(t_cost_at_list_consumption_model, '.') > 0 THEN rtrim(rtrim(t_cost_at_list_consumption_model, '0'), '.') ELSE t_cost_at_list_consumption_model END) END AS n_cost_at_list_consumption_model,
        strftime(ts_usage_start_time, '%Y-%m-%dT%H:%M:%S') || coalesce('.' || lpad(CAST(nullif(epoch_us(ts_usage_start_time) % 1000000, 0) AS VARCHAR), 6, '0'), '') AS iso_usage_start_time,
        strftime(ts_usage_end_time, '%Y-%m-%dT%H:%M:%S') || coalesce('.' || lpad(CAST(nullif(epoch_us(ts_usage_end_time) % 1000000, 0) AS VARCHAR), 6, '0'), '') AS iso_usage_end_time,
        strftime(ts_export_time, '%Y-%m-%dT%H:%M:%S') || coalesce('.' || lpad(CAST(nullif(epoch_us(ts_export_time) % 1000000, 0) AS VARCHAR), 6, '0'), '') AS iso_export_time,
        -- each repeated record's canonical text (none when empty)
        CASE WHEN array_length(e.credits) > 0 THEN '[' || array_to_string(list_transform(e.credits, lambda x: coalesce('{' || nullif(array_to_string([
    '"amount":' || '"' || (CASE WHEN (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) = '-0' THEN '0' ELSE (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) END) || '"',
    '"full_name":' || '"' || x.full_name || '"',
    '"id":' || '"' || x.id || '"',
    '"name":' || '"' || x.name || '"',
    '"type":' || '"' || x.type || '"'
], ','), '') || '}', 'null')), ',') || ']' END AS c_credits,
        CASE WHEN array_length(label_items) > 0 THEN '[' || array_to_string(list_transform(e.labels, lambda x: coalesce('{' || nullif(array_to_string([
    '"key":' || '"' || x.key || '"',
    '"value":' || '"' || x.value || '"'
], ','), '') || '}', 'null')), ',') || ']' END AS c_labels,
        CASE WHEN array_length(e.project.ancestors) > 0 THEN '[' || array_to_string(list_transform(e.project.ancestors, lambda x: coalesce('{' || nullif(array_to_string([
    '"display_name":' || '"' || x.display_name || '"',
    '"resource_name":' || '"' || x.resource_name || '"'
], ','), '') || '}', 'null')), ',') || ']' END AS c_project_ancestors,
        CASE WHEN array_length(project_label_items) > 0 THEN '[' || array_to_string(list_transform(e.project.labels, lambda x: coalesce('{' || nullif(array_to_string([
    '"key":' || '"' || x.key || '"',
    '"value":' || '"' || x.value || '"'
], ','), '') || '}', 'null')), ',') || ']' END AS c_project_labels,
        CASE WHEN array_length(system_label_items) > 0 THEN '[' || array_to_string(list_transform(e.system_labels, lambda x: coalesce('{' || nullif(array_to_string([
    '"key":' || '"' || x.key || '"',
    '"value":' || '"' || x.value || '"'
], ','), '') || '}', 'null')), ',') || ']' END AS c_system_labels,
        CASE WHEN array_length(e.tags) > 0 THEN '[' || array_to_string(list_transform(e.tags, lambda x: coalesce('{' || nullif(array_to_string([
    '"inherited":' || CASE WHEN x.inherited THEN 'true' WHEN NOT x.inherited THEN 'false' END,
    '"key":' || '"' || x.key || '"',
    '"namespace":' || '"' || x.namespace || '"',
    '"value":' || '"' || x.value || '"'
], ','), '') || '}', 'null')), ',') || ']' END AS c_tags
    FROM texts
),
typed AS (
    SELECT
        *,
        CASE WHEN regexp_matches(n_cost, '^-?[0-9]{1,20}([.][0-9]{1,9})?$') THEN CAST(n_cost AS DECIMAL(38, 9)) END AS cost,
        CASE WHEN regexp_matches(n_cost_at_list, '^-?[0-9]{1,20}([.][0-9]{1,9})?$') THEN CAST(n_cost_at_list AS DECIMAL(38, 9)) END AS cost_at_list,
        CASE WHEN regexp_matches(n_usage_amount, '^-?[0-9]{1,25}([.][0-9]{1,9})?$') THEN CAST(n_usage_amount AS DECIMAL(38, 9)) END AS usage_amount,
        CASE WHEN regexp_matches(n_usage_amount_in_pricing_units, '^-?[0-9]{1,25}([.][0-9]{1,9})?$') THEN CAST(n_usage_amount_in_pricing_units AS DECIMAL(38, 9)) END AS usage_amount_in_pricing_units,
        -- the rate, and the rate in integer atto-units (from its text: exact on both engines);
        -- at most 10 whole digits: the normaliser's rate.quantize(1e-18) holds 28 digits
        CASE WHEN regexp_matches(n_currency_conversion_rate, '^[0-9]{1,10}([.][0-9]{1,18})?$') THEN CAST(n_currency_conversion_rate AS DECIMAL(38, 18)) END AS rate,
        CASE WHEN regexp_matches(n_currency_conversion_rate, '^[0-9]{1,10}([.][0-9]{1,18})?$') THEN CAST(
            replace(n_currency_conversion_rate, '.', '')
            || repeat('0', 18 - CASE WHEN strpos(n_currency_conversion_rate, '.') > 0 THEN length(n_currency_conversion_rate) - strpos(n_currency_conversion_rate, '.') ELSE 0 END)
            AS HUGEINT) END AS rate_atto,
        coalesce(list_sum(list_transform(e.credits, lambda x: CASE WHEN x.amount IS NULL THEN CAST(0 AS DECIMAL(38, 9)) WHEN regexp_matches(CASE WHEN (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) = '-0' THEN '0' ELSE (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) END, '^-?[0-9]{1,20}([.][0-9]{1,9})?$') THEN CAST(CASE WHEN (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) = '-0' THEN '0' ELSE (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) END AS DECIMAL(38, 9)) END)), CAST(0 AS DECIMAL(38, 9))) AS credits_sum,
        -- credits whose amount is not a plain decimal of at most 9 places (or past the limit)
        coalesce(list_sum(list_transform(e.credits, lambda x: CASE WHEN x.amount IS NULL THEN 0 WHEN regexp_matches(CASE WHEN (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) = '-0' THEN '0' ELSE (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) END, '^-?[0-9]{1,20}([.][0-9]{1,9})?$') AND regexp_matches(CAST(x.amount AS VARCHAR), '^-?[0-9]+([.][0-9]+)?$') AND CAST(CASE WHEN (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) = '-0' THEN '0' ELSE (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) END AS DOUBLE) = x.amount AND (CASE WHEN strpos((CASE WHEN (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) = '-0' THEN '0' ELSE (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) END), '.') = 0 THEN abs(x.amount) < 9007199254740992 WHEN regexp_matches((CASE WHEN (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) = '-0' THEN '0' ELSE (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) END), '^-?[0-9]{1,19}[.][0-9]{1,18}$') THEN CAST(rtrim(left((CASE WHEN (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) = '-0' THEN '0' ELSE (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) END), length((CASE WHEN (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) = '-0' THEN '0' ELSE (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) END)) - 1), '.') AS DOUBLE) <> x.amount AND CAST(CAST(CAST(CAST(rtrim(left((CASE WHEN (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) = '-0' THEN '0' ELSE (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) END), length((CASE WHEN (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) = '-0' THEN '0' ELSE (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) END)) - 1), '.') AS DECIMAL(38, 18)) + CASE WHEN starts_with((CASE WHEN (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) = '-0' THEN '0' ELSE (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) END), '-') THEN -1 ELSE 1 END * CAST(CASE WHEN (length((CASE WHEN (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) = '-0' THEN '0' ELSE (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) END)) - strpos((CASE WHEN (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) = '-0' THEN '0' ELSE (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) END), '.')) = 1 THEN '1' ELSE '0.' || repeat('0', (length((CASE WHEN (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) = '-0' THEN '0' ELSE (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) END)) - strpos((CASE WHEN (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) = '-0' THEN '0' ELSE (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) END), '.')) - 2) || '1' END AS DECIMAL(38, 18)) AS DECIMAL(38, 18)) AS VARCHAR) AS DOUBLE) <> x.amount ELSE false END) AND abs(CAST(CASE WHEN (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) = '-0' THEN '0' ELSE (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) END AS DECIMAL(38, 9))) <= CAST($max_money AS DECIMAL(38, 9)) THEN 0 ELSE 1 END)), 0) AS credits_bad,
        k.sku_kind IS NOT NULL AS sku_known,
        k.accelerator_type,
        k.pricing_model,
        k.sku_kind,
        k.is_commitment_fee,
        k.commitment_term,
        k.network_traffic,
        k.is_egress,
        u.seconds_per_unit
    FROM numbers
    LEFT JOIN skus AS k
        ON k.sku_description IS NOT DISTINCT FROM numbers.e.sku.description
        AND k.service_name IS NOT DISTINCT FROM numbers.e.service.description
    LEFT JOIN units AS u ON u.unit = lower(trim(numbers.e.usage.unit))
),
nanos AS (
    SELECT
        *,
        CASE WHEN rate_atto > 0 THEN rate_atto END AS rate_d,  -- no division by 0
        CASE WHEN accelerator_type IS NOT NULL THEN CAST(usage_amount * CAST(seconds_per_unit AS BIGINT) AS DECIMAL(38, 9)) END AS accelerator_seconds,
        -- |amount| in nano-units times 10^18, from its text (|amount| < 10^11 keeps it in 38
        -- digits; built from text, as the engines multiply two 38-digit decimals differently)
        CASE WHEN abs(cost) < 100000000000 THEN CAST(replace(CAST(abs(cost) AS VARCHAR), '.', '') || repeat('0', 27 - CASE WHEN strpos(CAST(abs(cost) AS VARCHAR), '.') > 0 THEN length(CAST(abs(cost) AS VARCHAR)) - strpos(CAST(abs(cost) AS VARCHAR), '.') ELSE 0 END) AS HUGEINT) END AS cost_n,
        CASE WHEN abs(credits_sum) < 100000000000 THEN CAST(replace(CAST(abs(credits_sum) AS VARCHAR), '.', '') || repeat('0', 27 - CASE WHEN strpos(CAST(abs(credits_sum) AS VARCHAR), '.') > 0 THEN length(CAST(abs(credits_sum) AS VARCHAR)) - strpos(CAST(abs(credits_sum) AS VARCHAR), '.') ELSE 0 END) AS HUGEINT) END AS credits_n,
        CASE WHEN abs(cost_at_list) < 100000000000 THEN CAST(replace(CAST(abs(cost_at_list) AS VARCHAR), '.', '') || repeat('0', 27 - CASE WHEN strpos(CAST(abs(cost_at_list) AS VARCHAR), '.') > 0 THEN length(CAST(abs(cost_at_list) AS VARCHAR)) - strpos(CAST(abs(cost_at_list) AS VARCHAR), '.') ELSE 0 END) AS HUGEINT) END AS list_n
    FROM typed
),
usd AS (
    SELECT
        *,
        CASE WHEN rate IS NULL OR rate = 1 THEN cost
        ELSE CAST(CAST(sign(cost) * (cost_n // rate_d + CASE WHEN 2 * (cost_n % rate_d) > rate_d OR (2 * (cost_n % rate_d) = rate_d AND (cost_n // rate_d) % 2 = 1) THEN 1 ELSE 0 END) AS DECIMAL(38, 0)) * CAST(0.000000001 AS DECIMAL(10, 9)) AS DECIMAL(38, 9)) END AS cost_usd,
        CASE WHEN rate IS NULL OR rate = 1 THEN credits_sum
        ELSE CAST(CAST(sign(credits_sum) * (credits_n // rate_d + CASE WHEN 2 * (credits_n % rate_d) > rate_d OR (2 * (credits_n % rate_d) = rate_d AND (credits_n // rate_d) % 2 = 1) THEN 1 ELSE 0 END) AS DECIMAL(38, 0)) * CAST(0.000000001 AS DECIMAL(10, 9)) AS DECIMAL(38, 9)) END AS credits_total_usd,
        CASE WHEN rate IS NULL OR rate = 1 THEN cost_at_list
        ELSE CAST(CAST(sign(cost_at_list) * (list_n // rate_d + CASE WHEN 2 * (list_n % rate_d) > rate_d OR (2 * (list_n % rate_d) = rate_d AND (list_n // rate_d) % 2 = 1) THEN 1 ELSE 0 END) AS DECIMAL(38, 0)) * CAST(0.000000001 AS DECIMAL(10, 9)) AS DECIMAL(38, 9)) END AS cost_at_list_usd
    FROM nanos
),
judged AS (
    SELECT
        *,
        coalesce(
            regexp_matches(all_strings, '^[ -!#-\[\]-~]*$')
            AND (t_price_effective_price IS NULL OR (regexp_matches(t_price_effective_price, '^-?[0-9]+([.][0-9]+)?$') AND length(trim(replace(ltrim(n_price_effective_price, '-'), '.', ''), '0')) <= 28))
            AND (t_price_tier_start_amount IS NULL OR (regexp_matches(t_price_tier_start_amount, '^-?[0-9]+([.][0-9]+)?$') AND length(trim(replace(ltrim(n_price_tier_start_amount, '-'), '.', ''), '0')) <= 28))
            AND (t_price_pricing_unit_quantity IS NULL OR (regexp_matches(t_price_pricing_unit_quantity, '^-?[0-9]+([.][0-9]+)?$') AND length(trim(replace(ltrim(n_price_pricing_unit_quantity, '-'), '.', ''), '0')) <= 28))
            AND (t_price_list_price IS NULL OR (regexp_matches(t_price_list_price, '^-?[0-9]+([.][0-9]+)?$') AND length(trim(replace(ltrim(n_price_list_price, '-'), '.', ''), '0')) <= 28))
            AND (t_price_effective_price_default IS NULL OR (regexp_matches(t_price_effective_price_default, '^-?[0-9]+([.][0-9]+)?$') AND length(trim(replace(ltrim(n_price_effective_price_default, '-'), '.', ''), '0')) <= 28))
            AND (t_price_list_price_consumption_model IS NULL OR (regexp_matches(t_price_list_price_consumption_model, '^-?[0-9]+([.][0-9]+)?$') AND length(trim(replace(ltrim(n_price_list_price_consumption_model, '-'), '.', ''), '0')) <= 28))
            AND (t_cost IS NULL OR (regexp_matches(t_cost, '^-?[0-9]+([.][0-9]+)?$') AND length(trim(replace(ltrim(n_cost, '-'), '.', ''), '0')) <= 28 AND CAST(n_cost AS DOUBLE) = e.cost AND (CASE WHEN strpos(n_cost, '.') = 0 THEN abs(e.cost) < 9007199254740992 WHEN regexp_matches(n_cost, '^-?[0-9]{1,19}[.][0-9]{1,18}$') THEN CAST(rtrim(left(n_cost, length(n_cost) - 1), '.') AS DOUBLE) <> e.cost AND CAST(CAST(CAST(CAST(rtrim(left(n_cost, length(n_cost) - 1), '.') AS DECIMAL(38, 18)) + CASE WHEN starts_with(n_cost, '-') THEN -1 ELSE 1 END * CAST(CASE WHEN (length(n_cost) - strpos(n_cost, '.')) = 1 THEN '1' ELSE '0.' || repeat('0', (length(n_cost) - strpos(n_cost, '.')) - 2) || '1' END AS DECIMAL(38, 18)) AS DECIMAL(38, 18)) AS VARCHAR) AS DOUBLE) <> e.cost ELSE false END)))
            AND (t_currency_conversion_rate IS NULL OR (regexp_matches(t_currency_conversion_rate, '^-?[0-9]+([.][0-9]+)?$') AND length(trim(replace(ltrim(n_currency_conversion_rate, '-'), '.', ''), '0')) <= 28 AND CAST(n_currency_conversion_rate AS DOUBLE) = e.currency_conversion_rate AND (CASE WHEN strpos(n_currency_conversion_rate, '.') = 0 THEN abs(e.currency_conversion_rate) < 9007199254740992 WHEN regexp_matches(n_currency_conversion_rate, '^-?[0-9]{1,19}[.][0-9]{1,18}$') THEN CAST(rtrim(left(n_currency_conversion_rate, length(n_currency_conversion_rate) - 1), '.') AS DOUBLE) <> e.currency_conversion_rate AND CAST(CAST(CAST(CAST(rtrim(left(n_currency_conversion_rate, length(n_currency_conversion_rate) - 1), '.') AS DECIMAL(38, 18)) + CASE WHEN starts_with(n_currency_conversion_rate, '-') THEN -1 ELSE 1 END * CAST(CASE WHEN (length(n_currency_conversion_rate) - strpos(n_currency_conversion_rate, '.')) = 1 THEN '1' ELSE '0.' || repeat('0', (length(n_currency_conversion_rate) - strpos(n_currency_conversion_rate, '.')) - 2) || '1' END AS DECIMAL(38, 18)) AS DECIMAL(38, 18)) AS VARCHAR) AS DOUBLE) <> e.currency_conversion_rate ELSE false END)))
            AND (t_usage_amount IS NULL OR (regexp_matches(t_usage_amount, '^-?[0-9]+([.][0-9]+)?$') AND length(trim(replace(ltrim(n_usage_amount, '-'), '.', ''), '0')) <= 28 AND CAST(n_usage_amount AS DOUBLE) = e.usage.amount AND (CASE WHEN strpos(n_usage_amount, '.') = 0 THEN abs(e.usage.amount) < 9007199254740992 WHEN regexp_matches(n_usage_amount, '^-?[0-9]{1,19}[.][0-9]{1,18}$') THEN CAST(rtrim(left(n_usage_amount, length(n_usage_amount) - 1), '.') AS DOUBLE) <> e.usage.amount AND CAST(CAST(CAST(CAST(rtrim(left(n_usage_amount, length(n_usage_amount) - 1), '.') AS DECIMAL(38, 18)) + CASE WHEN starts_with(n_usage_amount, '-') THEN -1 ELSE 1 END * CAST(CASE WHEN (length(n_usage_amount) - strpos(n_usage_amount, '.')) = 1 THEN '1' ELSE '0.' || repeat('0', (length(n_usage_amount) - strpos(n_usage_amount, '.')) - 2) || '1' END AS DECIMAL(38, 18)) AS DECIMAL(38, 18)) AS VARCHAR) AS DOUBLE) <> e.usage.amount ELSE false END)))
            AND (t_usage_amount_in_pricing_units IS NULL OR (regexp_matches(t_usage_amount_in_pricing_units, '^-?[0-9]+([.][0-9]+)?$') AND length(trim(replace(ltrim(n_usage_amount_in_pricing_units, '-'), '.', ''), '0')) <= 28 AND CAST(n_usage_amount_in_pricing_units AS DOUBLE) = e.usage.amount_in_pricing_units AND (CASE WHEN strpos(n_usage_amount_in_pricing_units, '.') = 0 THEN abs(e.usage.amount_in_pricing_units) < 9007199254740992 WHEN regexp_matches(n_usage_amount_in_pricing_units, '^-?[0-9]{1,19}[.][0-9]{1,18}$') THEN CAST(rtrim(left(n_usage_amount_in_pricing_units, length(n_usage_amount_in_pricing_units) - 1), '.') AS DOUBLE) <> e.usage.amount_in_pricing_units AND CAST(CAST(CAST(CAST(rtrim(left(n_usage_amount_in_pricing_units, length(n_usage_amount_in_pricing_units) - 1), '.') AS DECIMAL(38, 18)) + CASE WHEN starts_with(n_usage_amount_in_pricing_units, '-') THEN -1 ELSE 1 END * CAST(CASE WHEN (length(n_usage_amount_in_pricing_units) - strpos(n_usage_amount_in_pricing_units, '.')) = 1 THEN '1' ELSE '0.' || repeat('0', (length(n_usage_amount_in_pricing_units) - strpos(n_usage_amount_in_pricing_units, '.')) - 2) || '1' END AS DECIMAL(38, 18)) AS DECIMAL(38, 18)) AS VARCHAR) AS DOUBLE) <> e.usage.amount_in_pricing_units ELSE false END)))
            AND (t_cost_at_list IS NULL OR (regexp_matches(t_cost_at_list, '^-?[0-9]+([.][0-9]+)?$') AND length(trim(replace(ltrim(n_cost_at_list, '-'), '.', ''), '0')) <= 28 AND CAST(n_cost_at_list AS DOUBLE) = e.cost_at_list AND (CASE WHEN strpos(n_cost_at_list, '.') = 0 THEN abs(e.cost_at_list) < 9007199254740992 WHEN regexp_matches(n_cost_at_list, '^-?[0-9]{1,19}[.][0-9]{1,18}$') THEN CAST(rtrim(left(n_cost_at_list, length(n_cost_at_list) - 1), '.') AS DOUBLE) <> e.cost_at_list AND CAST(CAST(CAST(CAST(rtrim(left(n_cost_at_list, length(n_cost_at_list) - 1), '.') AS DECIMAL(38, 18)) + CASE WHEN starts_with(n_cost_at_list, '-') THEN -1 ELSE 1 END * CAST(CASE WHEN (length(n_cost_at_list) - strpos(n_cost_at_list, '.')) = 1 THEN '1' ELSE '0.' || repeat('0', (length(n_cost_at_list) - strpos(n_cost_at_list, '.')) - 2) || '1' END AS DECIMAL(38, 18)) AS DECIMAL(38, 18)) AS VARCHAR) AS DOUBLE) <> e.cost_at_list ELSE false END)))
            AND (t_cost_at_effective_price_default IS NULL OR (regexp_matches(t_cost_at_effective_price_default, '^-?[0-9]+([.][0-9]+)?$') AND length(trim(replace(ltrim(n_cost_at_effective_price_default, '-'), '.', ''), '0')) <= 28 AND CAST(n_cost_at_effective_price_default AS DOUBLE) = e.cost_at_effective_price_default AND (CASE WHEN strpos(n_cost_at_effective_price_default, '.') = 0 THEN abs(e.cost_at_effective_price_default) < 9007199254740992 WHEN regexp_matches(n_cost_at_effective_price_default, '^-?[0-9]{1,19}[.][0-9]{1,18}$') THEN CAST(rtrim(left(n_cost_at_effective_price_default, length(n_cost_at_effective_price_default) - 1), '.') AS DOUBLE) <> e.cost_at_effective_price_default AND CAST(CAST(CAST(CAST(rtrim(left(n_cost_at_effective_price_default, length(n_cost_at_effective_price_default) - 1), '.') AS DECIMAL(38, 18)) + CASE WHEN starts_with(n_cost_at_effective_price_default, '-') THEN -1 ELSE 1 END * CAST(CASE WHEN (length(n_cost_at_effective_price_default) - strpos(n_cost_at_effective_price_default, '.')) = 1 THEN '1' ELSE '0.' || repeat('0', (length(n_cost_at_effective_price_default) - strpos(n_cost_at_effective_price_default, '.')) - 2) || '1' END AS DECIMAL(38, 18)) AS DECIMAL(38, 18)) AS VARCHAR) AS DOUBLE) <> e.cost_at_effective_price_default ELSE false END)))
            AND (t_cost_at_list_consumption_model IS NULL OR (regexp_matches(t_cost_at_list_consumption_model, '^-?[0-9]+([.][0-9]+)?$') AND length(trim(replace(ltrim(n_cost_at_list_consumption_model, '-'), '.', ''), '0')) <= 28 AND CAST(n_cost_at_list_consumption_model AS DOUBLE) = e.cost_at_list_consumption_model AND (CASE WHEN strpos(n_cost_at_list_consumption_model, '.') = 0 THEN abs(e.cost_at_list_consumption_model) < 9007199254740992 WHEN regexp_matches(n_cost_at_list_consumption_model, '^-?[0-9]{1,19}[.][0-9]{1,18}$') THEN CAST(rtrim(left(n_cost_at_list_consumption_model, length(n_cost_at_list_consumption_model) - 1), '.') AS DOUBLE) <> e.cost_at_list_consumption_model AND CAST(CAST(CAST(CAST(rtrim(left(n_cost_at_list_consumption_model, length(n_cost_at_list_consumption_model) - 1), '.') AS DECIMAL(38, 18)) + CASE WHEN starts_with(n_cost_at_list_consumption_model, '-') THEN -1 ELSE 1 END * CAST(CASE WHEN (length(n_cost_at_list_consumption_model) - strpos(n_cost_at_list_consumption_model, '.')) = 1 THEN '1' ELSE '0.' || repeat('0', (length(n_cost_at_list_consumption_model) - strpos(n_cost_at_list_consumption_model, '.')) - 2) || '1' END AS DECIMAL(38, 18)) AS DECIMAL(38, 18)) AS VARCHAR) AS DOUBLE) <> e.cost_at_list_consumption_model ELSE false END)))
            AND ts_usage_start_time IS NOT NULL AND ts_usage_end_time IS NOT NULL
            AND ts_usage_end_time >= ts_usage_start_time
            AND ts_usage_start_time BETWEEN $earliest AND $latest
            AND ts_usage_end_time BETWEEN $earliest AND $latest
            AND epoch_us(ts_usage_end_time) - epoch_us(ts_usage_start_time) <= $max_span_us
            AND (ts_export_time IS NULL OR ts_export_time BETWEEN $earliest AND $latest)
            AND cost IS NOT NULL AND abs(cost) <= CAST($max_money AS DECIMAL(38, 9))
            AND (n_cost_at_list IS NULL OR (cost_at_list IS NOT NULL AND abs(cost_at_list) <= CAST($max_money AS DECIMAL(38, 9))))
            AND (n_usage_amount IS NULL OR (usage_amount IS NOT NULL AND abs(usage_amount) <= CAST($max_usage AS DECIMAL(38, 9))))
            AND (n_usage_amount_in_pricing_units IS NULL OR (usage_amount_in_pricing_units IS NOT NULL AND abs(usage_amount_in_pricing_units) <= CAST($max_usage AS DECIMAL(38, 9))))
            AND (n_currency_conversion_rate IS NULL OR (rate_atto > 0 AND rate_atto < 10000000000000000000000000000000000000))
            AND credits_bad = 0 AND abs(credits_sum) <= CAST($max_money AS DECIMAL(38, 9))
            AND sku_known
            AND (accelerator_seconds IS NULL OR abs(accelerator_seconds) <= CAST($max_accelerator_seconds AS DECIMAL(38, 9)))
            AND (rate IS NULL OR rate = 1 OR (
                cost_n IS NOT NULL AND credits_n IS NOT NULL AND (cost_at_list IS NULL OR list_n IS NOT NULL)
                AND abs(cost_usd) <= CAST($max_money AS DECIMAL(38, 9)) AND abs(credits_total_usd) <= CAST($max_money AS DECIMAL(38, 9))
                AND (cost_at_list IS NULL OR abs(cost_at_list_usd) <= CAST($max_money AS DECIMAL(38, 9)))))
            AND array_length(list_sort(list_distinct(list_transform(label_items, lambda x: x.key)))) = array_length(label_items)
            AND array_length(list_sort(list_distinct(list_transform(system_label_items, lambda x: x.key)))) = array_length(system_label_items)
            AND array_length(list_sort(list_distinct(list_transform(project_label_items, lambda x: x.key)))) = array_length(project_label_items)
            AND (e.invoice.month IS NULL OR regexp_matches(e.invoice.month, '^[0-9]{4}(0[1-9]|1[0-2])$')),
            false
        ) AS plain
    FROM usd
)
SELECT
    CASE WHEN plain THEN left(sha256(
'{' || nullif(array_to_string([
    '"adjustment_info":' || '{' || nullif(array_to_string([
    '"description":' || '"' || e.adjustment_info.description || '"',
    '"id":' || '"' || e.adjustment_info.id || '"',
    '"mode":' || '"' || e.adjustment_info.mode || '"',
    '"type":' || '"' || e.adjustment_info.type || '"'
], ','), '') || '}',
    '"billing_account_id":' || '"' || e.billing_account_id || '"',
    '"consumption_model":' || '{' || nullif(array_to_string([
    '"applied_subscription_instance_id":' || '"' || e.consumption_model.applied_subscription_instance_id || '"',
    '"description":' || '"' || e.consumption_model.description || '"',
    '"id":' || '"' || e.consumption_model.id || '"'
], ','), '') || '}',
    '"cost":' || '"' || n_cost || '"',
    '"cost_at_effective_price_default":' || '"' || n_cost_at_effective_price_default || '"',
    '"cost_at_list":' || '"' || n_cost_at_list || '"',
    '"cost_at_list_consumption_model":' || '"' || n_cost_at_list_consumption_model || '"',
    '"cost_type":' || '"' || e.cost_type || '"',
    '"credits":' || c_credits,
    '"currency":' || '"' || e.currency || '"',
    '"currency_conversion_rate":' || '"' || n_currency_conversion_rate || '"',
    '"export_time":' || '"' || iso_export_time || '"',
    '"invoice":' || '{' || nullif(array_to_string([
    '"month":' || '"' || e.invoice.month || '"',
    '"publisher_type":' || '"' || e.invoice.publisher_type || '"'
], ','), '') || '}',
    '"labels":' || c_labels,
    '"location":' || '{' || nullif(array_to_string([
    '"country":' || '"' || e.location.country || '"',
    '"location":' || '"' || e.location.location || '"',
    '"region":' || '"' || e.location.region || '"',
    '"zone":' || '"' || e.location.zone || '"'
], ','), '') || '}',
    '"price":' || '{' || nullif(array_to_string([
    '"effective_price":' || '"' || n_price_effective_price || '"',
    '"effective_price_default":' || '"' || n_price_effective_price_default || '"',
    '"list_price":' || '"' || n_price_list_price || '"',
    '"list_price_consumption_model":' || '"' || n_price_list_price_consumption_model || '"',
    '"pricing_unit_quantity":' || '"' || n_price_pricing_unit_quantity || '"',
    '"tier_start_amount":' || '"' || n_price_tier_start_amount || '"',
    '"unit":' || '"' || e.price.unit || '"'
], ','), '') || '}',
    '"project":' || '{' || nullif(array_to_string([
    '"ancestors":' || c_project_ancestors,
    '"ancestry_numbers":' || '"' || e.project.ancestry_numbers || '"',
    '"id":' || '"' || e.project.id || '"',
    '"labels":' || c_project_labels,
    '"name":' || '"' || e.project.name || '"',
    '"number":' || '"' || e.project.number || '"'
], ','), '') || '}',
    '"resource":' || '{' || nullif(array_to_string([
    '"global_name":' || '"' || e.resource.global_name || '"',
    '"name":' || '"' || e.resource.name || '"'
], ','), '') || '}',
    '"seller_name":' || '"' || e.seller_name || '"',
    '"service":' || '{' || nullif(array_to_string([
    '"description":' || '"' || e.service.description || '"',
    '"id":' || '"' || e.service.id || '"'
], ','), '') || '}',
    '"sku":' || '{' || nullif(array_to_string([
    '"description":' || '"' || e.sku.description || '"',
    '"id":' || '"' || e.sku.id || '"'
], ','), '') || '}',
    '"subscription":' || '{' || nullif(array_to_string([
    '"instance_id":' || '"' || e.subscription.instance_id || '"'
], ','), '') || '}',
    '"system_labels":' || c_system_labels,
    '"tags":' || c_tags,
    '"transaction_type":' || '"' || e.transaction_type || '"',
    '"usage":' || '{' || nullif(array_to_string([
    '"amount":' || '"' || n_usage_amount || '"',
    '"amount_in_pricing_units":' || '"' || n_usage_amount_in_pricing_units || '"',
    '"pricing_unit":' || '"' || e.usage.pricing_unit || '"',
    '"unit":' || '"' || e.usage.unit || '"'
], ','), '') || '}',
    '"usage_end_time":' || '"' || iso_usage_end_time || '"',
    '"usage_start_time":' || '"' || iso_usage_start_time || '"'
], ','), '') || '}'
    ), 32) END AS row_id,
    CAST(ts_usage_start_time AS DATE) AS usage_day,
    ts_usage_start_time AS usage_start,
    ts_usage_end_time AS usage_end,
    ts_export_time AS export_time,
    'gcp' AS provider,
    e.billing_account_id AS billing_account_id,
    e.project.id AS project_id,
    e.project.number AS project_number,
    e.project.name AS project_name,
    e.service.id AS service_id,
    e.service.description AS service_name,
    e.sku.id AS sku_id,
    e.sku.description AS sku_description,
    e.resource.name AS resource_name,
    e.resource.global_name AS resource_global_name,
    e.location.location AS location,
    e.location.country AS country,
    e.location.region AS region,
    e.location.zone AS zone,
    usage_amount,
    e.usage.unit AS usage_unit,
    usage_amount_in_pricing_units,
    e.usage.pricing_unit AS usage_pricing_unit,
    cost,
    credits_sum AS credits_total,
    CASE WHEN plain THEN list_transform(coalesce(e.credits, []), lambda x: {
        'name': x.name,
        'amount': CAST(coalesce(CAST(CASE WHEN (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) = '-0' THEN '0' ELSE (CASE WHEN strpos(CAST(x.amount AS VARCHAR), '.') > 0 THEN rtrim(rtrim(CAST(x.amount AS VARCHAR), '0'), '.') ELSE CAST(x.amount AS VARCHAR) END) END AS DECIMAL(38, 9)), 0) AS DECIMAL(38, 9)),
        'full_name': x.full_name,
        'id': x.id,
        'type': x.type
    }) END AS credits,
    cost_at_list,
    e.currency AS currency,
    rate AS currency_conversion_rate,
    cost_usd,
    credits_total_usd,
    cost_at_list_usd,
    e.cost_type AS cost_type,
    e.adjustment_info.type AS adjustment_type,
    e.adjustment_info.mode AS adjustment_mode,
    e.invoice.month AS invoice_month,
    e.transaction_type AS transaction_type,
    CASE WHEN plain THEN map_from_entries(list_transform(coalesce(label_items, []), lambda x: {'key': x.key, 'value': coalesce(x.value, '')})) END AS labels,
    CASE WHEN plain THEN map_from_entries(list_transform(coalesce(system_label_items, []), lambda x: {'key': x.key, 'value': coalesce(x.value, '')})) END AS system_labels,
    CASE WHEN plain THEN map_from_entries(list_transform(coalesce(project_label_items, []), lambda x: {'key': x.key, 'value': coalesce(x.value, '')})) END AS project_labels,
    accelerator_type,
    accelerator_seconds,
    pricing_model,
    sku_kind,
    is_commitment_fee,
    commitment_term,
    network_traffic,
    is_egress,
    CAST(NULL AS VARCHAR) AS extra_fields,
    $source AS source,
    CAST(NULL AS BIGINT) AS source_line,
    $ingested_at AS ingested_at,
    plain,
    e AS export_row
FROM judged
