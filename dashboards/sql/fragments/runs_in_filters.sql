-- @query: Runs (cost_per_run) in the filters: started (else submitted) on a UTC day in the
--   range (run_day, its partition on BigQuery, compared with the parameters themselves so the
--   scan is pruned), of a chosen provider (of the resources it held), team, project, workload
--   class and accelerator type. Every filter applies.
-- @param end_day: the range's last UTC day (DATE, inclusive)
-- @param start_day: the range's first UTC day (DATE, inclusive)
SELECT r.*
FROM cost_per_run AS r
CROSS JOIN filter_values AS f
WHERE r.run_day BETWEEN CAST($start_day AS DATE) AND CAST($end_day AS DATE)
  AND (array_length(f.providers) = 0 OR list_contains(f.providers, r.provider))
  AND (array_length(f.teams) = 0 OR list_contains(f.teams, r.team))
  AND (array_length(f.projects) = 0 OR list_contains(f.projects, r.project_id))
  AND (array_length(f.classes) = 0 OR list_contains(f.classes, r.workload_class))
  AND (array_length(f.accelerators) = 0 OR list_contains(f.accelerators, r.accelerator_type))
