-- @table: What the allocation reports rather than hides: billing rows labelled with a run id that names no known run (they stay in the pool), resource-hours whose claims exceeded what was paid (clipped pro rata), and placements without a project on a resource name that several projects bill (not allocated: which one is unknown).
-- @depends: billing_hourly, resource_hour_pool, job_placements, billing_line_items
-- @col kind: unknown_run_label, clipped_claim or ambiguous_placement.
-- @col project_id: Project.
-- @col resource_name: Resource (null for rows without one).
-- @col hour: UTC hour (start); for a labelled row spanning hours, its first hour.
-- @col detail: The unknown label value, claimed / paid accelerator-seconds, or the run and the projects.
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
UNION ALL
SELECT
    'ambiguous_placement' AS kind,
    NULL AS project_id,
    p.resource_name,
    date_trunc('hour', p.start_at) AS hour,
    format('run {} holds {}, billed in projects {}', p.run_id, p.resource_name, string_agg(DISTINCT b.project_id, ', ' ORDER BY b.project_id)) AS detail,
    CAST(NULL AS DECIMAL(38, 9)) AS effective_cost
FROM job_placements AS p
JOIN billing_line_items AS b ON b.resource_name = p.resource_name
WHERE p.project_id IS NULL
GROUP BY p.run_id, p.resource_name, p.start_at
HAVING count(DISTINCT b.project_id) > 1
ORDER BY kind, hour, resource_name
