-- Paid, allocated and idle (idle_capacity_daily) accelerator capacity and its cost (project and accelerator filters
-- apply: idle belongs to no team). Params: filters.
WITH p AS (
    SELECT
        CAST(? AS DATE) AS start_day,
        CAST(? AS DATE) AS end_day,
        CAST(? AS VARCHAR[]) AS teams,
        CAST(? AS VARCHAR[]) AS projects,
        CAST(? AS VARCHAR[]) AS classes,
        CAST(? AS VARCHAR[]) AS accelerators
)
SELECT
    coalesce(sum(i.paid_accelerator_hours), 0) AS paid_hours,
    coalesce(sum(i.allocated_accelerator_hours), 0) AS allocated_hours,
    coalesce(sum(i.unallocated_idle_hours), 0) AS unallocated_idle_hours,
    sum(i.busy_accelerator_hours) AS busy_hours,
    CAST(coalesce(sum(i.effective_cost), 0) AS DOUBLE) AS effective_usd,
    CAST(coalesce(sum(i.effective_cost) - sum(i.unallocated_idle_cost), 0) AS DOUBLE) AS allocated_usd,
    CAST(coalesce(sum(i.unallocated_idle_cost), 0) AS DOUBLE) AS unallocated_idle_usd,
    CAST(sum(i.allocated_idle_cost) AS DOUBLE) AS allocated_idle_usd,
    count(i.allocated_idle_cost) AS rows_with_telemetry
FROM idle_capacity_daily AS i, p
WHERE i.day BETWEEN p.start_day AND p.end_day
  AND (len(p.projects) = 0 OR list_contains(p.projects, i.project_id))
  AND (len(p.accelerators) = 0 OR list_contains(p.accelerators, i.accelerator_type))
