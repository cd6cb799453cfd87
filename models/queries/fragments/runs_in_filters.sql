-- @query: The runs (cost_per_run) that started (else were submitted: run_day) on a UTC day in
--   [$start_day, $end_day] (null: no bound), of a chosen provider (of the resources it held),
--   team, project, workload class and accelerator type (an empty list: all). Every filter
--   applies. The one statement of the run filters: runs_found (and through it top_runs and
--   run_totals), cost_per_million_tokens_by and mfu_runs read it as a table. A bound is
--   `$start_day IS NULL OR run_day >= $start_day` (the CLI passes none), not BETWEEN.
-- @param start_day: the first UTC day (DATE, inclusive); null for no bound.
-- @param end_day: the last UTC day (DATE, inclusive); null for no bound.
-- @param providers: the providers chosen (VARCHAR[]; empty: all).
-- @param teams: the run-owner teams chosen (VARCHAR[]; empty: all).
-- @param projects: the projects chosen (VARCHAR[]; empty: all).
-- @param classes: the workload classes chosen (VARCHAR[]; empty: all).
-- @param accelerators: the accelerator types chosen (VARCHAR[]; empty: all).
SELECT r.*
FROM cost_per_run AS r
WHERE (CAST($start_day AS DATE) IS NULL OR r.run_day >= CAST($start_day AS DATE))
  AND (CAST($end_day AS DATE) IS NULL OR r.run_day <= CAST($end_day AS DATE))
  AND (array_length(CAST($providers AS VARCHAR[])) = 0 OR list_contains(CAST($providers AS VARCHAR[]), r.provider))
  AND (array_length(CAST($teams AS VARCHAR[])) = 0 OR list_contains(CAST($teams AS VARCHAR[]), r.team))
  AND (array_length(CAST($projects AS VARCHAR[])) = 0 OR list_contains(CAST($projects AS VARCHAR[]), r.project_id))
  AND (array_length(CAST($classes AS VARCHAR[])) = 0 OR list_contains(CAST($classes AS VARCHAR[]), r.workload_class))
  AND (array_length(CAST($accelerators AS VARCHAR[])) = 0 OR list_contains(CAST($accelerators AS VARCHAR[]), r.accelerator_type))
