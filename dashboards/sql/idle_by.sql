-- Idle capacity (idle_capacity_daily) by one whitelisted dimension (accelerator_type or project_id). Params: filters, dimension.
WITH p AS (
    SELECT
        CAST(? AS DATE) AS start_day,
        CAST(? AS DATE) AS end_day,
        CAST(? AS VARCHAR[]) AS teams,
        CAST(? AS VARCHAR[]) AS projects,
        CAST(? AS VARCHAR[]) AS classes,
        CAST(? AS VARCHAR[]) AS accelerators,
        CAST(? AS VARCHAR) AS dimension
)
SELECT
    coalesce(CASE p.dimension
        WHEN 'accelerator_type' THEN i.accelerator_type
        WHEN 'project_id' THEN i.project_id
    END, '(none)') AS dimension_value,
    sum(i.paid_accelerator_hours) AS paid_hours,
    sum(i.unallocated_idle_hours) AS unallocated_idle_hours,
    CAST(sum(i.effective_cost) AS DOUBLE) AS effective_usd,
    CAST(sum(i.unallocated_idle_cost) AS DOUBLE) AS unallocated_idle_usd,
    CAST(sum(i.allocated_idle_cost) AS DOUBLE) AS allocated_idle_usd,
    CAST(sum(i.unallocated_idle_cost) AS DOUBLE) / nullif(CAST(sum(i.effective_cost) AS DOUBLE), 0)
        AS unallocated_idle_share
FROM idle_capacity_daily AS i, p
WHERE i.day BETWEEN p.start_day AND p.end_day
  AND (len(p.projects) = 0 OR list_contains(p.projects, i.project_id))
  AND (len(p.accelerators) = 0 OR list_contains(p.accelerators, i.accelerator_type))
GROUP BY 1
ORDER BY unallocated_idle_usd DESC, dimension_value
