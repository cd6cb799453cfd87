-- @query: Paid, allocated and idle (idle_capacity_daily) accelerator capacity and its cost
--   (project and accelerator filters apply: idle belongs to no team).
SELECT
    coalesce(sum(i.paid_accelerator_hours), 0) AS paid_hours,
    coalesce(sum(i.allocated_accelerator_hours), 0) AS allocated_hours,
    coalesce(sum(i.unallocated_idle_hours), 0) AS unallocated_idle_hours,
    sum(i.busy_accelerator_hours) AS busy_hours,
    coalesce(sum(i.effective_cost), 0) AS effective_usd,
    coalesce(sum(i.effective_cost) - sum(i.unallocated_idle_cost), 0) AS allocated_usd,
    coalesce(sum(i.unallocated_idle_cost), 0) AS unallocated_idle_usd,
    sum(i.allocated_idle_cost) AS allocated_idle_usd,
    count(i.allocated_idle_cost) AS rows_with_telemetry
FROM idle_days_in_filters AS i
