-- @table: Network traffic per UTC day, project, team and kind of traffic: bytes out and their cost. A billing row is network traffic when its SKU is a network SKU (billing_line_items.network_traffic, by the rules in collectors/sku_rules.csv). USD.
-- @grain day: day
-- @col day: UTC usage day.
-- @col project_id: Project.
-- @col team: Team label (else GKE's k8s-label/team or k8s-namespace: row_team in models/functions.sql); __unallocated__ when missing.
-- @col traffic: Kind of traffic (billing_line_items.network_traffic): internet, inter_region, inter_zone, intra_zone, google, download, other_egress, other_network.
-- @col is_egress: True when the traffic leaves the zone (charged as egress).
-- @col egress_gib: GiB sent (usage in bytes / 2^30; rows in another unit add nothing).
-- @col billing_rows: Billing rows.
-- @col effective_cost: Effective cost (USD).
SELECT
    usage_day AS day,
    project_id,
    coalesce(row_team(labels), '__unallocated__') AS team,
    network_traffic AS traffic,
    is_egress,
    CAST(coalesce(sum(usage_amount) FILTER (WHERE usage_unit = 'bytes'), 0) AS DOUBLE) / 1073741824.0 AS egress_gib,  -- an exact DECIMAL sum: rerun-stable
    count(*) AS billing_rows,
    sum(cost_usd + credits_total_usd) AS effective_cost
FROM billing_line_items
WHERE network_traffic IS NOT NULL
GROUP BY ALL
ORDER BY day, project_id, team, traffic
