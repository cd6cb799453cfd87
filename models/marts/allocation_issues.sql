-- @table: What the allocation reports rather than hides: billing rows labelled with a run id that names no known run (they stay in the pool), and resource-hours whose claims exceeded what was paid (clipped pro rata).
-- @depends: billing_hourly, resource_hour_pool
-- @col kind: unknown_run_label or clipped_claim.
-- @col project_id: Project.
-- @col resource_name: Resource (null for rows without one).
-- @col hour: UTC hour (start); for a labelled row spanning hours, its first hour.
-- @col detail: The unknown label value, or claimed / paid accelerator-seconds.
-- @col effective_cost: Cost concerned (USD): the labelled row's whole cost, or the resource-hour's cost.
SELECT
    'unknown_run_label' AS kind,
    project_id,
    resource_name,
    min(hour) AS hour,
    unknown_run_label AS detail,
    from_nanos(sum(effective_nanos)) AS effective_cost
FROM billing_hourly
WHERE unknown_run_label IS NOT NULL
GROUP BY row_id, project_id, resource_name, unknown_run_label
UNION ALL
SELECT
    'clipped_claim' AS kind,
    project_id,
    resource_name,
    hour,
    format('claimed {} s, paid {} s', held_accelerator_nanos // 1000000000, paid_accelerator_nanos // 1000000000) AS detail,
    from_nanos(effective_nanos) AS effective_cost
FROM resource_hour_pool
WHERE clipped
ORDER BY kind, hour, resource_name
