-- @table: Cloud Storage per UTC day, bucket and team: stored volume and its cost (checkpoints grow; this shows how fast). The service's storage SKUs (billing_line_items.sku_kind storage: its network SKUs, downloads and egress, are egress_daily's). USD.
-- @grain day: day
-- @col day: UTC usage day.
-- @col project_id: Project.
-- @col bucket: The bucket (resource name).
-- @col team: Team label (else GKE's k8s-label/team or k8s-namespace: row_team in models/functions.sql); __unallocated__ when missing.
-- @col gibibyte_months: Storage used, GiB-months (usage in byte-seconds / (2^30 x 2,629,746 s)).
-- @col mean_stored_gib: Mean GiB stored over the day.
-- @col effective_cost: Effective cost (USD).
SELECT
    usage_day AS day,
    project_id,
    resource_name AS bucket,
    coalesce(row_team(labels), '__unallocated__') AS team,
    CAST(sum(usage_amount) FILTER (WHERE usage_unit = 'byte-seconds') AS DOUBLE) / (1073741824.0 * 2629746.0) AS gibibyte_months,  -- exact DECIMAL sums: rerun-stable
    CAST(sum(usage_amount) FILTER (WHERE usage_unit = 'byte-seconds') AS DOUBLE) / (1073741824.0 * 86400.0) AS mean_stored_gib,
    sum(cost_usd + credits_total_usd) AS effective_cost
FROM billing_line_items
WHERE service_name = 'Cloud Storage' AND sku_kind = 'storage'
GROUP BY ALL
ORDER BY day, project_id, bucket
