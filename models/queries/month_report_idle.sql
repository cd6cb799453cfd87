-- @query: The calendar month's idle figures (idle_capacity, USD): accelerator resource cost,
--   unallocated idle cost, allocated idle cost (null without telemetry) and the paid and
--   unallocated idle accelerator-hours.
-- @param month_start: first day of the month (DATE).
SELECT coalesce(sum(effective_cost), 0) AS accelerator_cost,
       coalesce(sum(unallocated_idle_cost), 0) AS unallocated_idle_cost,
       sum(allocated_idle_cost) AS allocated_idle_cost,
       coalesce(sum(paid_accelerator_hours), 0) AS paid_accelerator_hours,
       coalesce(sum(unallocated_idle_hours), 0) AS unallocated_idle_hours
FROM idle_capacity
WHERE CAST(date_trunc('month', hour) AS DATE) = $month_start
