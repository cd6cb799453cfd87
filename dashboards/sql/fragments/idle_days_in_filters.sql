-- @query: Daily capacity (idle_capacity_daily) in the filters: UTC days in the range, the
--   chosen providers, projects and accelerator types. Idle belongs to no team or workload:
--   those do not apply.
-- @param end_day: the range's last UTC day (DATE, inclusive)
-- @param start_day: the range's first UTC day (DATE, inclusive)
SELECT i.*
FROM idle_capacity_daily AS i
CROSS JOIN filter_values AS f
WHERE i.day BETWEEN CAST($start_day AS DATE) AND CAST($end_day AS DATE)  -- parameters: BigQuery prunes a partitioned mart by them
  AND (array_length(f.providers) = 0 OR list_contains(f.providers, i.provider))
  AND (array_length(f.projects) = 0 OR list_contains(f.projects, i.project_id))
  AND (array_length(f.accelerators) = 0 OR list_contains(f.accelerators, i.accelerator_type))
