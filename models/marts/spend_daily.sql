-- @table: Spend per UTC day, provider, billing account, project, team, service and category, in the reporting currency (USD).
-- @depends: billing_line_items, network_sku_patterns
-- @col day: UTC usage day.
-- @col provider: Cloud provider (gcp).
-- @col billing_account_id: Billing account.
-- @col project_id: Project.
-- @col team: The row's team label (else GKE's k8s-label/team or k8s-namespace: row_team in models/functions.sql); __unallocated__ when it has none (Kubecost's name).
-- @col service_name: Service, e.g. Compute Engine.
-- @col category: accelerator, compute, storage, network, tax or other. network: the SKU matches network_sku_patterns (as egress_daily).
-- @col billed_cost: Cost before credits (USD).
-- @col credits_total: Sum of credits (USD, zero or negative).
-- @col effective_cost: billed_cost + credits_total (USD).
-- @col list_cost: Cost at list price (USD).
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
            WHEN EXISTS (
                SELECT 1 FROM network_sku_patterns AS p
                WHERE b.sku_description ILIKE p.pattern AND (p.service_name IS NULL OR p.service_name = b.service_name)
            ) THEN 'network'
            WHEN service_name = 'Cloud Storage' OR sku_description ILIKE '%storage%' OR sku_description ILIKE '%PD Capacity%' OR sku_description ILIKE '%disk%' THEN 'storage'
            WHEN sku_description ILIKE '%core%' OR sku_description ILIKE '%ram%' OR sku_description ILIKE '%instance%' THEN 'compute'
            ELSE 'other'
        END AS category,
        cost_usd,
        credits_total_usd,
        cost_at_list_usd
    FROM billing_line_items AS b
)
SELECT
    usage_day AS day,
    provider,
    billing_account_id,
    project_id,
    team,
    service_name,
    category,
    sum(cost_usd) AS billed_cost,
    sum(credits_total_usd) AS credits_total,
    sum(cost_usd + credits_total_usd) AS effective_cost,
    sum(cost_at_list_usd) AS list_cost
FROM categorised
GROUP BY ALL
ORDER BY day, provider, billing_account_id, project_id, team, service_name, category
