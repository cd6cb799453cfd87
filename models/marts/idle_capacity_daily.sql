-- @table: Idle capacity rolled up per UTC day, project, accelerator type and provider (from idle_capacity). USD.
-- @grain day: day
-- @col day: UTC day.
-- @col project_id: Project.
-- @col accelerator_type: Canonical accelerator type.
-- @col resources: Accelerator resources billed that day.
-- @col paid_accelerator_hours: Accelerator-hours paid.
-- @col allocated_accelerator_hours: Accelerator-hours held by runs.
-- @col busy_accelerator_hours: Accelerator-hours busy (null without telemetry).
-- @col unallocated_idle_hours: Accelerator-hours paid and held by no run.
-- @col effective_cost: Effective cost (USD).
-- @col unallocated_idle_cost: Cost of unallocated idle (USD).
-- @col allocated_idle_cost: Cost of allocated idle (USD; null without telemetry).
-- @col idle_cost_share: (unallocated + allocated idle cost) / effective cost.
-- @col provider: Who bills the resources: gcp, or the FOCUS ProviderName (AWS, Microsoft, Oracle ...).
SELECT
    CAST(hour AS DATE) AS day,
    project_id,
    accelerator_type,
    count(DISTINCT resource_name) AS resources,
    CAST(sum(CAST(paid_accelerator_hours AS DECIMAL(38, 12))) AS DOUBLE) AS paid_accelerator_hours,  -- exact: rerun-stable
    CAST(sum(CAST(allocated_accelerator_hours AS DECIMAL(38, 12))) AS DOUBLE) AS allocated_accelerator_hours,  -- exact: rerun-stable
    CAST(sum(CAST(busy_accelerator_hours AS DECIMAL(38, 12))) AS DOUBLE) AS busy_accelerator_hours,  -- exact: rerun-stable
    CAST(sum(CAST(unallocated_idle_hours AS DECIMAL(38, 12))) AS DOUBLE) AS unallocated_idle_hours,  -- exact: rerun-stable
    sum(effective_cost) AS effective_cost,
    sum(unallocated_idle_cost) AS unallocated_idle_cost,
    sum(allocated_idle_cost) AS allocated_idle_cost,
    CASE WHEN sum(effective_cost) <> 0
         THEN CAST(sum(unallocated_idle_cost) + coalesce(sum(allocated_idle_cost), 0) AS DOUBLE) / CAST(sum(effective_cost) AS DOUBLE) END AS idle_cost_share,
    provider
FROM idle_capacity
GROUP BY ALL
ORDER BY day, project_id, accelerator_type
