-- @table: One accelerator resource and UTC hour: accelerator-hours paid, allocated to runs and busy, and the cost of what sat idle: unallocated idle (no run held it) and allocated idle (held but not busy). USD.
-- @grain day: hour
-- @check resource_hours_close (error, blocking): allocated + unallocated idle = cost, every resource-hour.
-- @check resource_hours_unique (error, blocking): One row per resource-hour: nothing counted twice.
-- @col project_id: Project of the resource.
-- @col resource_name: The VM or TPU node as billed.
-- @col hour: UTC hour (start).
-- @col accelerator_type: Canonical accelerator type.
-- @col paid_accelerator_hours: Accelerator-hours the bill says were paid.
-- @col allocated_accelerator_hours: Paid accelerator-hours held by runs (claims clipped to what was paid).
-- @col busy_accelerator_hours: Allocated accelerator-hours that telemetry shows busy (null without telemetry).
-- @col unallocated_idle_hours: paid - allocated accelerator-hours: nobody held them.
-- @col effective_cost: Effective cost of the resource-hour (USD).
-- @col allocated_cost: Cost allocated to runs (USD).
-- @col unallocated_idle_cost: effective_cost - allocated_cost (USD): paid for, held by no run (includes rounding remainders).
-- @col allocated_idle_cost: Allocated cost x (1 - busy fraction) (USD): held by runs but not busy (null without telemetry).
-- @col busy_source: Where the busy figure came from (null without telemetry).
-- @col telemetry_coverage: Share (0 to 1) of the paid accelerator-seconds with telemetry.
-- @col provider: Who bills the resource: gcp, or the FOCUS ProviderName (AWS, Microsoft, Oracle ...).
WITH allocated AS (
    SELECT
        project_id,
        resource_name,
        hour,
        sum(allocated_nanos) AS allocated_nanos,
        sum(allocated_accelerator_nanos) AS allocated_accelerator_nanos
    FROM run_allocation
    GROUP BY ALL
),
allocated_idle AS (
    SELECT project_id, resource_name, hour, sum(allocated_idle_nanos) AS allocated_idle_nanos
    FROM run_utilisation
    GROUP BY ALL
)
SELECT
    p.project_id,
    p.resource_name,
    p.hour,
    p.accelerator_type,
    CAST(p.paid_accelerator_nanos AS DOUBLE) / 3.6e12 AS paid_accelerator_hours,
    CAST(coalesce(a.allocated_accelerator_nanos, 0) AS DOUBLE) / 3.6e12 AS allocated_accelerator_hours,
    u.busy_accelerator_seconds / 3600 AS busy_accelerator_hours,
    CAST(p.paid_accelerator_nanos - coalesce(a.allocated_accelerator_nanos, 0) AS DOUBLE) / 3.6e12 AS unallocated_idle_hours,
    from_nanos(p.effective_nanos) AS effective_cost,
    from_nanos(coalesce(a.allocated_nanos, 0)) AS allocated_cost,
    from_nanos(p.effective_nanos - coalesce(a.allocated_nanos, 0)) AS unallocated_idle_cost,
    from_nanos(i.allocated_idle_nanos) AS allocated_idle_cost,
    u.busy_source,
    u.telemetry_coverage,
    p.provider
FROM resource_hour_pool AS p
LEFT JOIN allocated AS a USING (project_id, resource_name, hour)
LEFT JOIN allocated_idle AS i USING (project_id, resource_name, hour)
LEFT JOIN resource_hour_utilisation AS u USING (project_id, resource_name, hour)
WHERE p.paid_accelerator_nanos > 0 OR p.accelerator_type IS NOT NULL
ORDER BY p.project_id, p.resource_name, p.hour
