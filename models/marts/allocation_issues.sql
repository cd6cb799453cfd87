-- @table: What the allocation reports rather than hides: billing rows labelled with a run id that names no known run (they stay in the pool), resource-hours whose claims exceeded what was paid (clipped pro rata), placements without a project on a resource name that several projects bill (not allocated: which one is unknown), and resources whose usage got committed-use credits in hours where no commitment fee matched them (the fee is not in the warehouse: their runs look cheaper than they were).
-- @grain day: hour
-- @check allocation_issues_counted (warn): Unknown run labels, clipped claims, ambiguous placements and committed-use credits no commitment fee matched (reported).
-- @col kind: unknown_run_label, clipped_claim, ambiguous_placement or unmatched_commitment_credit.
-- @col project_id: Project.
-- @col resource_name: Resource (null for rows without one).
-- @col hour: UTC hour (start); for a labelled row spanning hours, its first hour.
-- @col detail: The unknown label value, claimed / paid accelerator-seconds, the run and the projects, or the hours and credits without a commitment.
-- @col effective_cost: Cost concerned (USD): the labelled row's whole cost, the resource-hour's cost, or the unmatched credited rows' cost.
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
JOIN (
    SELECT project_id, resource_name AS match_name FROM billing_line_items WHERE resource_name IS NOT NULL
    UNION
    -- Another cloud's resource, by the names run_held_hours matches it by (its account is its project).
    SELECT coalesce(sub_account_id, billing_account_id), unnest([
        resource_id,
        CASE WHEN resource_id LIKE 'arn:%' THEN nullif(regexp_extract(resource_id, '[/:]([^/:]+)$', 1), '') END,
        CASE WHEN accelerator_type IS NOT NULL THEN resource_name END])
    FROM focus_line_items
    WHERE resource_id IS NOT NULL
) AS b ON b.match_name = p.resource_name
WHERE p.project_id IS NULL
GROUP BY p.run_id, p.resource_name, p.start_at
HAVING count(DISTINCT b.project_id) > 1
UNION ALL
SELECT
    'ambiguous_placement' AS kind,
    b.project_id,
    p.resource_name,
    date_trunc('hour', p.start_at) AS hour,
    format('run {} holds {}, which names resources {} in project {}', p.run_id, p.resource_name, string_agg(DISTINCT b.resource_key, ', ' ORDER BY b.resource_key), b.project_id) AS detail,
    CAST(NULL AS DECIMAL(38, 9)) AS effective_cost
FROM job_placements AS p
JOIN (
    -- Another cloud's resources one name could mean within one project (run_held_hours holds neither).
    SELECT coalesce(sub_account_id, billing_account_id) AS project_id, focus_resource(resource_id) AS resource_key, unnest([
        resource_id,
        CASE WHEN resource_id LIKE 'arn:%' THEN nullif(regexp_extract(resource_id, '[/:]([^/:]+)$', 1), '') END,
        CASE WHEN accelerator_type IS NOT NULL THEN resource_name END]) AS match_name
    FROM focus_line_items
    WHERE resource_id IS NOT NULL
) AS b ON b.match_name = p.resource_name AND (p.project_id IS NULL OR p.project_id = b.project_id)
GROUP BY p.run_id, p.resource_name, p.start_at, b.project_id
HAVING count(DISTINCT b.resource_key) > 1
UNION ALL
SELECT
    'unmatched_commitment_credit' AS kind,
    h.project_id,
    h.resource_name,
    min(h.hour) AS hour,
    format('{} hour(s) with {} USD of committed-use credits and no commitment fee to match', count(DISTINCT h.hour), CAST(from_nanos(-sum(h.committed_credit_nanos)) AS VARCHAR)) AS detail,
    from_nanos(sum(h.effective_nanos)) AS effective_cost
FROM billing_hourly AS h
WHERE h.row_kind = 'usage'
  AND h.committed_credit_nanos <> 0
  AND NOT EXISTS (
      SELECT 1 FROM commitment_allocation AS c
      WHERE c.hour = h.hour
        AND c.project_id IS NOT DISTINCT FROM h.project_id
        AND c.resource_name IS NOT DISTINCT FROM h.resource_name
        AND c.direct_run_id IS NOT DISTINCT FROM h.direct_run_id)
GROUP BY h.project_id, h.resource_name
ORDER BY kind, hour, resource_name
