-- @query: Hourly capacity (idle_capacity) in the filters: hours of UTC days in the range, the
--   chosen providers, projects and accelerator types. Idle belongs to no team or workload:
--   those do not apply.
SELECT i.*
FROM idle_capacity AS i
CROSS JOIN filter_values AS f
WHERE CAST(i.hour AS DATE) BETWEEN f.start_day AND f.end_day
  AND (array_length(f.providers) = 0 OR list_contains(f.providers, i.provider))
  AND (array_length(f.projects) = 0 OR list_contains(f.projects, i.project_id))
  AND (array_length(f.accelerators) = 0 OR list_contains(f.accelerators, i.accelerator_type))
