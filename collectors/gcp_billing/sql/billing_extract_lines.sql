-- @query: One row per line of a billing export extract (NDJSON) that parses as a JSON object:
-- the `billing_line_items` columns the reader can prove exactly as the per-row normaliser
-- (collectors/gcp_billing/normalise.py) would write them, and `plain`. A row is plain when
-- nothing about it needs that normaliser: it parses losslessly into the export's schema (its
-- JSON written back is the line itself: no unknown field, no number DuckDB would round, no
-- value of another type), its numbers are plain decimals with at most 9 places (money; the
-- rate at most 18), its timestamps are BigQuery's `YYYY-MM-DD hh:mm:ss UTC`
-- within the limits, and its money, usage and labels pass every check. Every other row goes
-- to the normaliser, which loads it or quarantines it with its reason.
-- row_id is the sha256 of the canonical text collectors/gcp_billing/canonical.py writes:
-- keys sorted, empty values left out, numbers normalised, times in ISO 8601. That text needs
-- no JSON escaping here because the reader only sends printable ASCII lines without a
-- backslash. Written by collectors/gcp_billing/reader_sql.py from the export schema
-- (collectors/gcp_billing/schema.py): change the generator, not this file, and run
-- `python -m flopledger.collectors.gcp_billing.reader_sql` (tests/collectors/
-- test_billing_reader_sql.py checks the two agree). tests/collectors/test_billing_columnar.py
-- checks it row for row against the normaliser.
-- Tables: lines (source, line, text: the extracts' candidate lines), skus (collectors/
-- gcp_billing/columnar.py's sku_lookups: what collectors/skus.py says of each (service_name,
-- sku_description) pair the extract names), units (unit, seconds_per_unit).
-- @param earliest: limits.earliest
-- @param latest: limits.latest
-- @param max_money: limits.max_money
-- @param max_usage: limits.max_usage
-- @param max_accelerator_seconds: limits.max_accelerator_seconds
-- @param max_span_us: limits.max_row_span in microseconds
-- @param ingested_at: the run's clock
WITH parsed AS (
    SELECT source, line, text, try(json_transform(text, '{"billing_account_id":"VARCHAR","service":{"id":"VARCHAR","description":"VARCHAR"},"sku":{"id":"VARCHAR","description":"VARCHAR"},"usage_start_time":"VARCHAR","usage_end_time":"VARCHAR","project":{"id":"VARCHAR","number":"VARCHAR","name":"VARCHAR","labels":[{"key":"VARCHAR","value":"VARCHAR"}],"ancestry_numbers":"VARCHAR","ancestors":[{"resource_name":"VARCHAR","display_name":"VARCHAR"}]},"labels":[{"key":"VARCHAR","value":"VARCHAR"}],"system_labels":[{"key":"VARCHAR","value":"VARCHAR"}],"location":{"location":"VARCHAR","country":"VARCHAR","region":"VARCHAR","zone":"VARCHAR"},"resource":{"name":"VARCHAR","global_name":"VARCHAR"},"tags":[{"key":"VARCHAR","value":"VARCHAR","inherited":"BOOLEAN","namespace":"VARCHAR"}],"price":{"effective_price":"JSON","tier_start_amount":"JSON","unit":"VARCHAR","pricing_unit_quantity":"JSON","list_price":"JSON","effective_price_default":"JSON","list_price_consumption_model":"JSON"},"subscription":{"instance_id":"VARCHAR"},"transaction_type":"VARCHAR","seller_name":"VARCHAR","export_time":"VARCHAR","cost":"JSON","currency":"VARCHAR","currency_conversion_rate":"JSON","usage":{"amount":"JSON","unit":"VARCHAR","amount_in_pricing_units":"JSON","pricing_unit":"VARCHAR"},"credits":[{"name":"VARCHAR","amount":"JSON","full_name":"VARCHAR","id":"VARCHAR","type":"VARCHAR"}],"invoice":{"month":"VARCHAR","publisher_type":"VARCHAR"},"cost_type":"VARCHAR","adjustment_info":{"id":"VARCHAR","description":"VARCHAR","mode":"VARCHAR","type":"VARCHAR"},"cost_at_list":"JSON","consumption_model":{"id":"VARCHAR","description":"VARCHAR","applied_subscription_instance_id":"VARCHAR"},"cost_at_effective_price_default":"JSON","cost_at_list_consumption_model":"JSON"}')) AS r
    FROM lines
    WHERE starts_with(text, '{')
),
back AS (
    SELECT *, CAST(to_json(r) AS VARCHAR) AS back FROM parsed  -- r NULL: not plain
),
texts AS MATERIALIZED (
    SELECT
        source,
        line,
        r,
        -- the same document, numbers aside (both sides' numbers as #; a missing, null or
        -- empty member is none), and the same numbers (DuckDB reads a JSON number as a
        -- double: `back` holds what it kept)
        CASE WHEN back IS NULL THEN false  -- not JSON, or not the export's shape
        WHEN back = text THEN true  -- the common case, and the cheap one
        ELSE fl_no_empty(regexp_replace(back, '":-?[0-9][0-9.eE+-]*', '":#', 'g'))
            = fl_no_empty(regexp_replace(fl_compact(text), '":-?[0-9][0-9.eE+-]*', '":#', 'g'))
            AND fl_num_keys(fl_num_tokens(back))
                = fl_num_keys(fl_num_tokens(fl_compact(text)))
            -- a null or empty member left out above: no duplicate key, no unknown field
            AND (NOT regexp_matches(text, '"\s*:\s*(null|\[\s*\])') OR fl_keys_ok(text, back)) END
            AS lossless,
        nullif(trim(CAST(r.price.effective_price AS VARCHAR), '"'), '') AS n_price_effective_price,
        nullif(trim(CAST(r.price.tier_start_amount AS VARCHAR), '"'), '') AS n_price_tier_start_amount,
        nullif(trim(CAST(r.price.pricing_unit_quantity AS VARCHAR), '"'), '') AS n_price_pricing_unit_quantity,
        nullif(trim(CAST(r.price.list_price AS VARCHAR), '"'), '') AS n_price_list_price,
        nullif(trim(CAST(r.price.effective_price_default AS VARCHAR), '"'), '') AS n_price_effective_price_default,
        nullif(trim(CAST(r.price.list_price_consumption_model AS VARCHAR), '"'), '') AS n_price_list_price_consumption_model,
        nullif(trim(CAST(r.cost AS VARCHAR), '"'), '') AS n_cost,
        nullif(trim(CAST(r.currency_conversion_rate AS VARCHAR), '"'), '') AS n_currency_conversion_rate,
        nullif(trim(CAST(r.usage.amount AS VARCHAR), '"'), '') AS n_usage_amount,
        nullif(trim(CAST(r.usage.amount_in_pricing_units AS VARCHAR), '"'), '') AS n_usage_amount_in_pricing_units,
        nullif(trim(CAST(r.cost_at_list AS VARCHAR), '"'), '') AS n_cost_at_list,
        nullif(trim(CAST(r.cost_at_effective_price_default AS VARCHAR), '"'), '') AS n_cost_at_effective_price_default,
        nullif(trim(CAST(r.cost_at_list_consumption_model AS VARCHAR), '"'), '') AS n_cost_at_list_consumption_model,
        CASE WHEN regexp_full_match(r.usage_start_time, '[0-9]{4}-[0-9]{2}-[0-9]{2} ([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,6})? UTC') THEN try_cast(left(r.usage_start_time, length(r.usage_start_time) - 4) AS TIMESTAMP) END AS t_usage_start_time,
        CASE WHEN regexp_full_match(r.usage_end_time, '[0-9]{4}-[0-9]{2}-[0-9]{2} ([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,6})? UTC') THEN try_cast(left(r.usage_end_time, length(r.usage_end_time) - 4) AS TIMESTAMP) END AS t_usage_end_time,
        CASE WHEN regexp_full_match(r.export_time, '[0-9]{4}-[0-9]{2}-[0-9]{2} ([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,6})? UTC') THEN try_cast(left(r.export_time, length(r.export_time) - 4) AS TIMESTAMP) END AS t_export_time,
        k.sku_kind IS NOT NULL AS sku_known,
        k.accelerator_type,
        k.pricing_model,
        k.sku_kind,
        k.is_commitment_fee,
        k.commitment_term,
        k.network_traffic,
        k.is_egress,
        u.seconds_per_unit
    FROM back
    LEFT JOIN skus AS k
        ON k.sku_description IS NOT DISTINCT FROM back.r.sku.description
        AND k.service_name IS NOT DISTINCT FROM back.r.service.description
    LEFT JOIN units AS u ON u.unit = lower(trim(back.r.usage.unit))
),
typed AS MATERIALIZED (
    SELECT
        *,
        CASE WHEN regexp_full_match(n_cost, '-?(0|[1-9][0-9]{0,28})(\.[0-9]{1,9})?') THEN CAST(n_cost AS DECIMAL(38, 9)) END AS cost,
        CASE WHEN regexp_full_match(n_cost_at_list, '-?(0|[1-9][0-9]{0,28})(\.[0-9]{1,9})?') THEN CAST(n_cost_at_list AS DECIMAL(38, 9)) END AS cost_at_list,
        -- usage below 1e25 and credits below 1e20 (far past any limit): usage times 3,600
        -- seconds and a row's credits summed stay inside DECIMAL(38, 9), which would
        -- otherwise fail the whole statement
        CASE WHEN regexp_full_match(n_usage_amount, '-?(0|[1-9][0-9]{0,24})(\.[0-9]{1,9})?') THEN CAST(n_usage_amount AS DECIMAL(38, 9)) END AS usage_amount,
        CASE WHEN regexp_full_match(n_usage_amount_in_pricing_units, '-?(0|[1-9][0-9]{0,28})(\.[0-9]{1,9})?') THEN CAST(n_usage_amount_in_pricing_units AS DECIMAL(38, 9)) END AS usage_amount_in_pricing_units,
        -- below 1e10: the per-row reader's rate.quantize(1e-18) fails past 28 digits
        CASE WHEN regexp_full_match(n_currency_conversion_rate, '-?(0|[1-9][0-9]{0,9})(\.[0-9]{1,18})?')
            THEN CAST(n_currency_conversion_rate AS DECIMAL(38, 18)) END AS rate,
        CASE WHEN accelerator_type IS NOT NULL THEN CAST(
            CASE WHEN regexp_full_match(n_usage_amount, '-?(0|[1-9][0-9]{0,24})(\.[0-9]{1,9})?')
            THEN CAST(n_usage_amount AS DECIMAL(38, 9)) END * seconds_per_unit AS DECIMAL(38, 9)
        ) END AS accelerator_seconds,
        list_transform(coalesce(r.credits, []), lambda x: {
            'name': x.name,
            'amount': coalesce(CASE WHEN regexp_full_match(nullif(trim(CAST(x.amount AS VARCHAR), '"'), ''), '-?(0|[1-9][0-9]{0,19})(\.[0-9]{1,9})?')
                THEN CAST(nullif(trim(CAST(x.amount AS VARCHAR), '"'), '') AS DECIMAL(38, 9)) END, CAST(0 AS DECIMAL(38, 9))),
            'full_name': x.full_name,
            'id': x.id,
            'type': x.type,
            'ok': x IS NOT NULL AND (nullif(trim(CAST(x.amount AS VARCHAR), '"'), '') IS NULL
                OR regexp_full_match(nullif(trim(CAST(x.amount AS VARCHAR), '"'), ''), '-?(0|[1-9][0-9]{0,19})(\.[0-9]{1,9})?')
                AND fl_digits_ok(nullif(trim(CAST(x.amount AS VARCHAR), '"'), '')))
        }) AS credit_rows
    FROM texts
),
checked AS MATERIALIZED (
    SELECT
        *,
        CAST(list_sum(list_transform(credit_rows, lambda c: c.amount)) AS DECIMAL(38, 9)) AS credits_sum,
        lossless
            AND t_usage_start_time IS NOT NULL AND t_usage_end_time IS NOT NULL
            AND t_usage_end_time >= t_usage_start_time
            AND t_usage_start_time BETWEEN $earliest AND $latest
            AND t_usage_end_time BETWEEN $earliest AND $latest
            AND epoch_us(t_usage_end_time) - epoch_us(t_usage_start_time) <= $max_span_us
            AND (r.export_time IS NULL OR t_export_time BETWEEN $earliest AND $latest)
            AND (n_price_effective_price IS NULL OR regexp_full_match(n_price_effective_price, '-?(0|[1-9][0-9]*)(\.[0-9]+)?'))
            AND (n_price_tier_start_amount IS NULL OR regexp_full_match(n_price_tier_start_amount, '-?(0|[1-9][0-9]*)(\.[0-9]+)?'))
            AND (n_price_pricing_unit_quantity IS NULL OR regexp_full_match(n_price_pricing_unit_quantity, '-?(0|[1-9][0-9]*)(\.[0-9]+)?'))
            AND (n_price_list_price IS NULL OR regexp_full_match(n_price_list_price, '-?(0|[1-9][0-9]*)(\.[0-9]+)?'))
            AND (n_price_effective_price_default IS NULL OR regexp_full_match(n_price_effective_price_default, '-?(0|[1-9][0-9]*)(\.[0-9]+)?'))
            AND (n_price_list_price_consumption_model IS NULL OR regexp_full_match(n_price_list_price_consumption_model, '-?(0|[1-9][0-9]*)(\.[0-9]+)?'))
            AND (n_cost IS NULL OR regexp_full_match(n_cost, '-?(0|[1-9][0-9]*)(\.[0-9]+)?'))
            AND (n_currency_conversion_rate IS NULL OR regexp_full_match(n_currency_conversion_rate, '-?(0|[1-9][0-9]*)(\.[0-9]+)?'))
            AND (n_usage_amount IS NULL OR regexp_full_match(n_usage_amount, '-?(0|[1-9][0-9]*)(\.[0-9]+)?'))
            AND (n_usage_amount_in_pricing_units IS NULL OR regexp_full_match(n_usage_amount_in_pricing_units, '-?(0|[1-9][0-9]*)(\.[0-9]+)?'))
            AND (n_cost_at_list IS NULL OR regexp_full_match(n_cost_at_list, '-?(0|[1-9][0-9]*)(\.[0-9]+)?'))
            AND (n_cost_at_effective_price_default IS NULL OR regexp_full_match(n_cost_at_effective_price_default, '-?(0|[1-9][0-9]*)(\.[0-9]+)?'))
            AND (n_cost_at_list_consumption_model IS NULL OR regexp_full_match(n_cost_at_list_consumption_model, '-?(0|[1-9][0-9]*)(\.[0-9]+)?'))
            -- no number the canonical text would round (row_id)
            AND fl_digits_ok(n_price_effective_price)
            AND fl_digits_ok(n_price_tier_start_amount)
            AND fl_digits_ok(n_price_pricing_unit_quantity)
            AND fl_digits_ok(n_price_list_price)
            AND fl_digits_ok(n_price_effective_price_default)
            AND fl_digits_ok(n_price_list_price_consumption_model)
            AND fl_digits_ok(n_cost)
            AND fl_digits_ok(n_currency_conversion_rate)
            AND fl_digits_ok(n_usage_amount)
            AND fl_digits_ok(n_usage_amount_in_pricing_units)
            AND fl_digits_ok(n_cost_at_list)
            AND fl_digits_ok(n_cost_at_effective_price_default)
            AND fl_digits_ok(n_cost_at_list_consumption_model)
            AND cost IS NOT NULL AND abs(cost) <= $max_money
            AND sku_known
            AND (accelerator_seconds IS NULL OR abs(accelerator_seconds) <= $max_accelerator_seconds)
            AND (n_cost_at_list IS NULL OR abs(cost_at_list) <= $max_money)
            AND (n_currency_conversion_rate IS NULL OR rate > 0)
            AND (n_usage_amount IS NULL OR abs(usage_amount) <= $max_usage)
            AND (n_usage_amount_in_pricing_units IS NULL
                OR abs(usage_amount_in_pricing_units) <= $max_usage)
            AND coalesce(list_bool_and(list_transform(credit_rows, lambda c: c.ok AND abs(c.amount) <= $max_money)), true)
            AND (r.labels IS NULL OR (coalesce(list_bool_and(list_transform(r.labels, lambda x: x IS NOT NULL AND x.key IS NOT NULL)), true) AND len(list_distinct(list_transform(r.labels, lambda x: x.key))) = len(r.labels)))
            AND (r.system_labels IS NULL OR (coalesce(list_bool_and(list_transform(r.system_labels, lambda x: x IS NOT NULL AND x.key IS NOT NULL)), true) AND len(list_distinct(list_transform(r.system_labels, lambda x: x.key))) = len(r.system_labels)))
            AND (r.project.labels IS NULL OR (coalesce(list_bool_and(list_transform(r.project.labels, lambda x: x IS NOT NULL AND x.key IS NOT NULL)), true) AND len(list_distinct(list_transform(r.project.labels, lambda x: x.key))) = len(r.project.labels)))
            AND (r.invoice.month IS NULL OR regexp_full_match(r.invoice.month, '[0-9]{4}(0[1-9]|1[0-2])'))
            AS plain_so_far
    FROM typed
),
judged AS MATERIALIZED (
    SELECT
        *,
        coalesce(
            plain_so_far
            AND abs(coalesce(credits_sum, 0)) <= $max_money
            -- another currency: USD exactly in HUGEINT nanos (|amount| < 1e11), within limits
            AND (rate IS NULL OR rate = 1 OR (
                abs(cost_usd) <= $max_money
                AND abs(credits_total_usd) <= $max_money
                AND (cost_at_list IS NULL OR abs(cost_at_list_usd) <= $max_money)
            )),
            false
        ) AS plain
    FROM (
        SELECT
            *,
            fl_usd(cost, rate) AS cost_usd,
            fl_usd(coalesce(credits_sum, CAST(0 AS DECIMAL(38, 9))), rate) AS credits_total_usd,
            fl_usd(cost_at_list, rate) AS cost_at_list_usd
        FROM checked
    )
)
SELECT
    line,
    plain,
    left(sha256(
        '{' || nullif(concat_ws(',',
            '"adjustment_info":' || '{' || nullif(concat_ws(',',
                '"description":' || '"' || r.adjustment_info.description || '"',
                '"id":' || '"' || r.adjustment_info.id || '"',
                '"mode":' || '"' || r.adjustment_info.mode || '"',
                '"type":' || '"' || r.adjustment_info.type || '"'
            ), '') || '}',
            '"billing_account_id":' || '"' || r.billing_account_id || '"',
            '"consumption_model":' || '{' || nullif(concat_ws(',',
                '"applied_subscription_instance_id":' || '"' || r.consumption_model.applied_subscription_instance_id || '"',
                '"description":' || '"' || r.consumption_model.description || '"',
                '"id":' || '"' || r.consumption_model.id || '"'
            ), '') || '}',
            '"cost":' || '"' || (CASE WHEN (CASE WHEN contains(n_cost, '.') THEN rtrim(rtrim(n_cost, '0'), '.') ELSE n_cost END) = '-0' THEN '0' ELSE (CASE WHEN contains(n_cost, '.') THEN rtrim(rtrim(n_cost, '0'), '.') ELSE n_cost END) END) || '"',
            '"cost_at_effective_price_default":' || '"' || (CASE WHEN (CASE WHEN contains(n_cost_at_effective_price_default, '.') THEN rtrim(rtrim(n_cost_at_effective_price_default, '0'), '.') ELSE n_cost_at_effective_price_default END) = '-0' THEN '0' ELSE (CASE WHEN contains(n_cost_at_effective_price_default, '.') THEN rtrim(rtrim(n_cost_at_effective_price_default, '0'), '.') ELSE n_cost_at_effective_price_default END) END) || '"',
            '"cost_at_list":' || '"' || (CASE WHEN (CASE WHEN contains(n_cost_at_list, '.') THEN rtrim(rtrim(n_cost_at_list, '0'), '.') ELSE n_cost_at_list END) = '-0' THEN '0' ELSE (CASE WHEN contains(n_cost_at_list, '.') THEN rtrim(rtrim(n_cost_at_list, '0'), '.') ELSE n_cost_at_list END) END) || '"',
            '"cost_at_list_consumption_model":' || '"' || (CASE WHEN (CASE WHEN contains(n_cost_at_list_consumption_model, '.') THEN rtrim(rtrim(n_cost_at_list_consumption_model, '0'), '.') ELSE n_cost_at_list_consumption_model END) = '-0' THEN '0' ELSE (CASE WHEN contains(n_cost_at_list_consumption_model, '.') THEN rtrim(rtrim(n_cost_at_list_consumption_model, '0'), '.') ELSE n_cost_at_list_consumption_model END) END) || '"',
            '"cost_type":' || '"' || r.cost_type || '"',
            '"credits":' || CASE WHEN len(r.credits) > 0 THEN '[' || array_to_string(list_transform(r.credits, lambda x: coalesce('{' || nullif(concat_ws(',',
                    '"amount":' || '"' || (CASE WHEN (CASE WHEN contains(nullif(trim(CAST(x.amount AS VARCHAR), '"'), ''), '.') THEN rtrim(rtrim(nullif(trim(CAST(x.amount AS VARCHAR), '"'), ''), '0'), '.') ELSE nullif(trim(CAST(x.amount AS VARCHAR), '"'), '') END) = '-0' THEN '0' ELSE (CASE WHEN contains(nullif(trim(CAST(x.amount AS VARCHAR), '"'), ''), '.') THEN rtrim(rtrim(nullif(trim(CAST(x.amount AS VARCHAR), '"'), ''), '0'), '.') ELSE nullif(trim(CAST(x.amount AS VARCHAR), '"'), '') END) END) || '"',
                    '"full_name":' || '"' || x.full_name || '"',
                    '"id":' || '"' || x.id || '"',
                    '"name":' || '"' || x.name || '"',
                    '"type":' || '"' || x.type || '"'
                ), '') || '}', 'null')), ',') || ']' END,
            '"currency":' || '"' || r.currency || '"',
            '"currency_conversion_rate":' || '"' || (CASE WHEN (CASE WHEN contains(n_currency_conversion_rate, '.') THEN rtrim(rtrim(n_currency_conversion_rate, '0'), '.') ELSE n_currency_conversion_rate END) = '-0' THEN '0' ELSE (CASE WHEN contains(n_currency_conversion_rate, '.') THEN rtrim(rtrim(n_currency_conversion_rate, '0'), '.') ELSE n_currency_conversion_rate END) END) || '"',
            '"export_time":' || '"' || (CASE WHEN epoch_us(t_export_time) % 1000000 = 0 THEN strftime(t_export_time, '%Y-%m-%dT%H:%M:%S') ELSE strftime(t_export_time, '%Y-%m-%dT%H:%M:%S.%f') END) || '"',
            '"invoice":' || '{' || nullif(concat_ws(',',
                '"month":' || '"' || r.invoice.month || '"',
                '"publisher_type":' || '"' || r.invoice.publisher_type || '"'
            ), '') || '}',
            '"labels":' || CASE WHEN len(r.labels) > 0 THEN '[' || array_to_string(list_transform(r.labels, lambda x: coalesce('{' || nullif(concat_ws(',',
                    '"key":' || '"' || x.key || '"',
                    '"value":' || '"' || x.value || '"'
                ), '') || '}', 'null')), ',') || ']' END,
            '"location":' || '{' || nullif(concat_ws(',',
                '"country":' || '"' || r.location.country || '"',
                '"location":' || '"' || r.location.location || '"',
                '"region":' || '"' || r.location.region || '"',
                '"zone":' || '"' || r.location.zone || '"'
            ), '') || '}',
            '"price":' || '{' || nullif(concat_ws(',',
                '"effective_price":' || '"' || (CASE WHEN (CASE WHEN contains(n_price_effective_price, '.') THEN rtrim(rtrim(n_price_effective_price, '0'), '.') ELSE n_price_effective_price END) = '-0' THEN '0' ELSE (CASE WHEN contains(n_price_effective_price, '.') THEN rtrim(rtrim(n_price_effective_price, '0'), '.') ELSE n_price_effective_price END) END) || '"',
                '"effective_price_default":' || '"' || (CASE WHEN (CASE WHEN contains(n_price_effective_price_default, '.') THEN rtrim(rtrim(n_price_effective_price_default, '0'), '.') ELSE n_price_effective_price_default END) = '-0' THEN '0' ELSE (CASE WHEN contains(n_price_effective_price_default, '.') THEN rtrim(rtrim(n_price_effective_price_default, '0'), '.') ELSE n_price_effective_price_default END) END) || '"',
                '"list_price":' || '"' || (CASE WHEN (CASE WHEN contains(n_price_list_price, '.') THEN rtrim(rtrim(n_price_list_price, '0'), '.') ELSE n_price_list_price END) = '-0' THEN '0' ELSE (CASE WHEN contains(n_price_list_price, '.') THEN rtrim(rtrim(n_price_list_price, '0'), '.') ELSE n_price_list_price END) END) || '"',
                '"list_price_consumption_model":' || '"' || (CASE WHEN (CASE WHEN contains(n_price_list_price_consumption_model, '.') THEN rtrim(rtrim(n_price_list_price_consumption_model, '0'), '.') ELSE n_price_list_price_consumption_model END) = '-0' THEN '0' ELSE (CASE WHEN contains(n_price_list_price_consumption_model, '.') THEN rtrim(rtrim(n_price_list_price_consumption_model, '0'), '.') ELSE n_price_list_price_consumption_model END) END) || '"',
                '"pricing_unit_quantity":' || '"' || (CASE WHEN (CASE WHEN contains(n_price_pricing_unit_quantity, '.') THEN rtrim(rtrim(n_price_pricing_unit_quantity, '0'), '.') ELSE n_price_pricing_unit_quantity END) = '-0' THEN '0' ELSE (CASE WHEN contains(n_price_pricing_unit_quantity, '.') THEN rtrim(rtrim(n_price_pricing_unit_quantity, '0'), '.') ELSE n_price_pricing_unit_quantity END) END) || '"',
                '"tier_start_amount":' || '"' || (CASE WHEN (CASE WHEN contains(n_price_tier_start_amount, '.') THEN rtrim(rtrim(n_price_tier_start_amount, '0'), '.') ELSE n_price_tier_start_amount END) = '-0' THEN '0' ELSE (CASE WHEN contains(n_price_tier_start_amount, '.') THEN rtrim(rtrim(n_price_tier_start_amount, '0'), '.') ELSE n_price_tier_start_amount END) END) || '"',
                '"unit":' || '"' || r.price.unit || '"'
            ), '') || '}',
            '"project":' || '{' || nullif(concat_ws(',',
                '"ancestors":' || CASE WHEN len(r.project.ancestors) > 0 THEN '[' || array_to_string(list_transform(r.project.ancestors, lambda x: coalesce('{' || nullif(concat_ws(',',
                        '"display_name":' || '"' || x.display_name || '"',
                        '"resource_name":' || '"' || x.resource_name || '"'
                    ), '') || '}', 'null')), ',') || ']' END,
                '"ancestry_numbers":' || '"' || r.project.ancestry_numbers || '"',
                '"id":' || '"' || r.project.id || '"',
                '"labels":' || CASE WHEN len(r.project.labels) > 0 THEN '[' || array_to_string(list_transform(r.project.labels, lambda x: coalesce('{' || nullif(concat_ws(',',
                        '"key":' || '"' || x.key || '"',
                        '"value":' || '"' || x.value || '"'
                    ), '') || '}', 'null')), ',') || ']' END,
                '"name":' || '"' || r.project.name || '"',
                '"number":' || '"' || r.project.number || '"'
            ), '') || '}',
            '"resource":' || '{' || nullif(concat_ws(',',
                '"global_name":' || '"' || r.resource.global_name || '"',
                '"name":' || '"' || r.resource.name || '"'
            ), '') || '}',
            '"seller_name":' || '"' || r.seller_name || '"',
            '"service":' || '{' || nullif(concat_ws(',',
                '"description":' || '"' || r.service.description || '"',
                '"id":' || '"' || r.service.id || '"'
            ), '') || '}',
            '"sku":' || '{' || nullif(concat_ws(',',
                '"description":' || '"' || r.sku.description || '"',
                '"id":' || '"' || r.sku.id || '"'
            ), '') || '}',
            '"subscription":' || '{' || nullif(concat_ws(',',
                '"instance_id":' || '"' || r.subscription.instance_id || '"'
            ), '') || '}',
            '"system_labels":' || CASE WHEN len(r.system_labels) > 0 THEN '[' || array_to_string(list_transform(r.system_labels, lambda x: coalesce('{' || nullif(concat_ws(',',
                    '"key":' || '"' || x.key || '"',
                    '"value":' || '"' || x.value || '"'
                ), '') || '}', 'null')), ',') || ']' END,
            '"tags":' || CASE WHEN len(r.tags) > 0 THEN '[' || array_to_string(list_transform(r.tags, lambda x: coalesce('{' || nullif(concat_ws(',',
                    '"inherited":' || CASE WHEN x.inherited THEN 'true' WHEN NOT x.inherited THEN 'false' END,
                    '"key":' || '"' || x.key || '"',
                    '"namespace":' || '"' || x.namespace || '"',
                    '"value":' || '"' || x.value || '"'
                ), '') || '}', 'null')), ',') || ']' END,
            '"transaction_type":' || '"' || r.transaction_type || '"',
            '"usage":' || '{' || nullif(concat_ws(',',
                '"amount":' || '"' || (CASE WHEN (CASE WHEN contains(n_usage_amount, '.') THEN rtrim(rtrim(n_usage_amount, '0'), '.') ELSE n_usage_amount END) = '-0' THEN '0' ELSE (CASE WHEN contains(n_usage_amount, '.') THEN rtrim(rtrim(n_usage_amount, '0'), '.') ELSE n_usage_amount END) END) || '"',
                '"amount_in_pricing_units":' || '"' || (CASE WHEN (CASE WHEN contains(n_usage_amount_in_pricing_units, '.') THEN rtrim(rtrim(n_usage_amount_in_pricing_units, '0'), '.') ELSE n_usage_amount_in_pricing_units END) = '-0' THEN '0' ELSE (CASE WHEN contains(n_usage_amount_in_pricing_units, '.') THEN rtrim(rtrim(n_usage_amount_in_pricing_units, '0'), '.') ELSE n_usage_amount_in_pricing_units END) END) || '"',
                '"pricing_unit":' || '"' || r.usage.pricing_unit || '"',
                '"unit":' || '"' || r.usage.unit || '"'
            ), '') || '}',
            '"usage_end_time":' || '"' || (CASE WHEN epoch_us(t_usage_end_time) % 1000000 = 0 THEN strftime(t_usage_end_time, '%Y-%m-%dT%H:%M:%S') ELSE strftime(t_usage_end_time, '%Y-%m-%dT%H:%M:%S.%f') END) || '"',
            '"usage_start_time":' || '"' || (CASE WHEN epoch_us(t_usage_start_time) % 1000000 = 0 THEN strftime(t_usage_start_time, '%Y-%m-%dT%H:%M:%S') ELSE strftime(t_usage_start_time, '%Y-%m-%dT%H:%M:%S.%f') END) || '"'
        ), '') || '}'
    ), 32) AS row_id,
    CAST(t_usage_start_time AS DATE) AS usage_day,
    t_usage_start_time AS usage_start,
    t_usage_end_time AS usage_end,
    t_export_time AS export_time,
    'gcp' AS provider,
    r.billing_account_id AS billing_account_id,
    r.project.id AS project_id,
    r.project.number AS project_number,
    r.project.name AS project_name,
    r.service.id AS service_id,
    r.service.description AS service_name,
    r.sku.id AS sku_id,
    r.sku.description AS sku_description,
    r.resource.name AS resource_name,
    r.resource.global_name AS resource_global_name,
    r.location.location AS location,
    r.location.country AS country,
    r.location.region AS region,
    r.location.zone AS zone,
    usage_amount,
    r.usage.unit AS usage_unit,
    usage_amount_in_pricing_units,
    r.usage.pricing_unit AS usage_pricing_unit,
    cost,
    coalesce(credits_sum, CAST(0 AS DECIMAL(38, 9))) AS credits_total,
    list_transform(credit_rows, lambda c: {
        'name': c.name, 'amount': c.amount, 'full_name': c.full_name, 'id': c.id, 'type': c.type
    }) AS credits,
    cost_at_list,
    r.currency AS currency,
    rate AS currency_conversion_rate,
    cost_usd,
    credits_total_usd,
    cost_at_list_usd,
    r.cost_type AS cost_type,
    r.adjustment_info.type AS adjustment_type,
    r.adjustment_info.mode AS adjustment_mode,
    r.invoice.month AS invoice_month,
    r.transaction_type AS transaction_type,
    map_from_entries(list_transform(coalesce(r.labels, []), lambda x: {'key': x.key, 'value': coalesce(x.value, '')}))::MAP(VARCHAR, VARCHAR) AS labels,
    map_from_entries(list_transform(coalesce(r.system_labels, []), lambda x: {'key': x.key, 'value': coalesce(x.value, '')}))::MAP(VARCHAR, VARCHAR) AS system_labels,
    map_from_entries(list_transform(coalesce(r.project.labels, []), lambda x: {'key': x.key, 'value': coalesce(x.value, '')}))::MAP(VARCHAR, VARCHAR) AS project_labels,
    accelerator_type,
    accelerator_seconds,
    pricing_model,
    sku_kind,
    is_commitment_fee,
    commitment_term,
    network_traffic,
    is_egress,
    CAST(NULL AS VARCHAR) AS extra_fields,
    source,
    line AS source_line,
    $ingested_at AS ingested_at
FROM judged
WHERE plain
