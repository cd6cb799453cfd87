-- @query: Idle capacity (idle_capacity_daily) by one whitelisted dimension ($dimension:
--   provider, accelerator_type or project_id), with the idle shares of cost as docs/glossary.md
--   defines them.
-- @param dimension: the whitelisted column to group by (the view checks it against its list)
SELECT
    coalesce(CASE $dimension
        WHEN 'provider' THEN i.provider
        WHEN 'accelerator_type' THEN i.accelerator_type
        WHEN 'project_id' THEN i.project_id
    END, '(none)') AS dimension_value,
    sum(i.paid_accelerator_hours) AS paid_hours,
    sum(i.unallocated_idle_hours) AS unallocated_idle_hours,
    sum(i.effective_cost) AS effective_usd,
    sum(i.unallocated_idle_cost) AS unallocated_idle_usd,
    sum(i.allocated_idle_cost) AS allocated_idle_usd,
    CAST(sum(i.unallocated_idle_cost) AS DOUBLE) / nullif(CAST(sum(i.effective_cost) AS DOUBLE), 0)
        AS unallocated_idle_share,
    CAST(sum(i.unallocated_idle_cost) + coalesce(sum(i.allocated_idle_cost), 0) AS DOUBLE)
        / nullif(CAST(sum(i.effective_cost) AS DOUBLE), 0) AS idle_share_of_cost
FROM idle_days_in_filters AS i
GROUP BY 1
ORDER BY unallocated_idle_usd DESC, dimension_value
