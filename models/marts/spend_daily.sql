-- @table: Spend per UTC day, provider, billing account, project, team, service and category, in the reporting currency (USD).
-- @grain day: day
-- @col day: UTC usage day (FOCUS: the day of ChargePeriodStart).
-- @col provider: Cloud provider: gcp for the Google export's rows; FOCUS rows' ProviderName as written (AWS, Microsoft, Oracle ...).
-- @col billing_account_id: Billing account (FOCUS BillingAccountId).
-- @col project_id: Project (FOCUS SubAccountId: an AWS account, an Azure subscription, an OCI compartment).
-- @col team: The row's team label (FOCUS: the `team` tag) (else GKE's k8s-label/team or k8s-namespace: row_team in models/functions.sql); __unallocated__ when it has none (Kubecost's name).
-- @col service_name: Service, e.g. Compute Engine.
-- @col category: accelerator, compute, storage, network, tax or other. GCP rows: tax for cost_type tax, accelerator where the SKU names an accelerator type, else the SKU's billing_line_items.sku_kind (network, storage; cores, memory and other VM SKUs are compute; the rules: collectors/sku_rules.csv). FOCUS rows: tax for ChargeCategory Tax, accelerator where the row names a GPU instance type (focus_line_items.accelerator_type, from accelerators/instances.py), else from ServiceCategory (Compute, Storage, Networking).
-- @col billed_cost: Cost before credits (USD; FOCUS BilledCost of every row but credits).
-- @col credits_total: Sum of credits (USD, zero or negative; FOCUS BilledCost of Credit rows).
-- @col effective_cost: billed_cost + credits_total (USD); FOCUS rows: EffectiveCost (amortised commitments, after discounts).
-- @col list_cost: Cost at list price (USD; FOCUS ListCost).
WITH categorised AS (
    SELECT
        usage_day,
        provider,
        billing_account_id,
        project_id,
        coalesce(row_team(labels), '__unallocated__') AS team,
        service_name,
        CASE
            WHEN cost_type = 'tax' THEN 'tax'
            WHEN accelerator_type IS NOT NULL THEN 'accelerator'
            WHEN sku_kind IN ('network', 'storage') THEN sku_kind
            WHEN sku_kind IN ('cores', 'memory', 'compute') THEN 'compute'
            ELSE 'other'
        END AS category,
        cost_usd,
        credits_total_usd,
        cost_at_list_usd
    FROM billing_line_items
),
focus AS (
    SELECT
        charge_day AS usage_day,
        provider_name AS provider,
        billing_account_id,
        sub_account_id AS project_id,
        coalesce(nullif(trim(json_extract_string(tags, '$.team')), ''), '__unallocated__') AS team,
        service_name,
        CASE
            WHEN charge_category = 'Tax' THEN 'tax'
            WHEN accelerator_type IS NOT NULL THEN 'accelerator'
            WHEN service_category = 'Networking' THEN 'network'
            WHEN service_category = 'Storage' THEN 'storage'
            WHEN service_category = 'Compute' THEN 'compute'
            ELSE 'other'
        END AS category,
        CASE WHEN charge_category = 'Credit' THEN 0 ELSE billed_cost END AS cost_usd,
        CASE WHEN charge_category = 'Credit' THEN billed_cost ELSE 0 END AS credits_total_usd,
        coalesce(effective_cost, billed_cost) AS effective_cost_usd,
        list_cost AS cost_at_list_usd
    FROM focus_line_items
    WHERE billing_currency = 'USD'
),
spend AS (
    -- Both sides at DECIMAL(38, 12) before the union: FOCUS money rounded to 9 places a row drifts.
    SELECT
        * REPLACE (
            CAST(cost_usd AS DECIMAL(38, 12)) AS cost_usd,
            CAST(credits_total_usd AS DECIMAL(38, 12)) AS credits_total_usd,
            CAST(cost_at_list_usd AS DECIMAL(38, 12)) AS cost_at_list_usd
        ),
        CAST(cost_usd + credits_total_usd AS DECIMAL(38, 12)) AS effective_cost_usd
    FROM categorised
    UNION ALL BY NAME
    SELECT
        * REPLACE (
            CAST(cost_usd AS DECIMAL(38, 12)) AS cost_usd,
            CAST(credits_total_usd AS DECIMAL(38, 12)) AS credits_total_usd,
            CAST(effective_cost_usd AS DECIMAL(38, 12)) AS effective_cost_usd,
            CAST(cost_at_list_usd AS DECIMAL(38, 12)) AS cost_at_list_usd
        )
    FROM focus
)
SELECT
    usage_day AS day,
    provider,
    billing_account_id,
    project_id,
    team,
    service_name,
    category,
    CAST(sum(cost_usd) AS DECIMAL(38, 12)) AS billed_cost,
    CAST(sum(credits_total_usd) AS DECIMAL(38, 12)) AS credits_total,
    CAST(sum(effective_cost_usd) AS DECIMAL(38, 12)) AS effective_cost,
    CAST(sum(cost_at_list_usd) AS DECIMAL(38, 12)) AS list_cost
FROM spend
GROUP BY ALL
ORDER BY day, provider, billing_account_id, project_id, team, service_name, category
