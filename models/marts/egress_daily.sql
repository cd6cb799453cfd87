-- @table: Network egress per UTC day, project and team: bytes out and their cost. USD.
-- @depends: billing_line_items
-- @col day: UTC usage day.
-- @col project_id: Project.
-- @col team: Team label; __unallocated__ when missing.
-- @col egress_gib: GiB sent (usage in bytes / 2^30).
-- @col effective_cost: Effective cost (USD).
SELECT
    usage_day AS day,
    project_id,
    coalesce(labels['team'], '__unallocated__') AS team,
    sum(CASE WHEN usage_unit = 'bytes' THEN CAST(usage_amount AS DOUBLE) END) / 1073741824.0 AS egress_gib,
    sum(cost_usd + credits_total_usd) AS effective_cost
FROM billing_line_items
WHERE sku_description ILIKE '%egress%'
GROUP BY ALL
ORDER BY day, project_id, team
