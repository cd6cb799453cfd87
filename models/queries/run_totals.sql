-- @query: The runs (cost_per_run) that started (else were submitted: run_day) on a UTC day in
--   [$start_day, $end_day] (null: no bound), in the filters, whose run id, job id, model or
--   experiment contains $needle: one row ($group_by null, and the row is there without runs),
--   or one per run-owner team ('__unallocated__' without one), provider ('(none)' for a run
--   that held no billed resource), experiment or model ('(none)' without one). How many ran,
--   the cost of runs started (USD), their tokens and their mean utilisation (percent, weighted
--   by accelerator-hours, over the runs with telemetry; null without any). The one query of these figures: the Overview and Runs pages,
--   the mean-utilisation alert rule and the month report run it.
-- @param start_day: the first UTC day (DATE, inclusive); null for no bound.
-- @param end_day: the last UTC day (DATE, inclusive); null for no bound.
-- @param providers: the providers chosen (VARCHAR[]; empty: all).
-- @param teams: the run-owner teams chosen (VARCHAR[]; empty: all).
-- @param projects: the projects chosen (VARCHAR[]; empty: all).
-- @param classes: the workload classes chosen (VARCHAR[]; empty: all).
-- @param accelerators: the accelerator types chosen (VARCHAR[]; empty: all).
-- @param needle: the search text (trimmed, lower case; '' matches every run). strpos, not LIKE:
--   the text is never a pattern.
-- @param group_by: team, provider, experiment_id or model_name; null for one row.
-- The group is chosen in a subquery and grouped by outside it (portable SQL: bqemulator binds
-- `GROUP BY` of a CASE over a parameter as the columns inside it).
WITH chosen AS (
    SELECT
        CASE $group_by
            WHEN 'team' THEN coalesce(r.team, '__unallocated__')
            WHEN 'provider' THEN coalesce(r.provider, '(none)')
            WHEN 'experiment_id' THEN coalesce(r.experiment_id, '(none)')
            WHEN 'model_name' THEN coalesce(r.model_name, '(none)')
        END AS group_value,
        r.effective_cost,
        r.accelerator_hours,
        r.tokens_in,
        r.tokens_out,
        r.mean_utilisation_pct,
        1 AS run
    FROM cost_per_run AS r
    WHERE (CAST($start_day AS DATE) IS NULL OR r.run_day >= CAST($start_day AS DATE))
      AND (CAST($end_day AS DATE) IS NULL OR r.run_day <= CAST($end_day AS DATE))
      AND (array_length(CAST($providers AS VARCHAR[])) = 0 OR list_contains(CAST($providers AS VARCHAR[]), r.provider))
      AND (array_length(CAST($teams AS VARCHAR[])) = 0 OR list_contains(CAST($teams AS VARCHAR[]), r.team))
      AND (array_length(CAST($projects AS VARCHAR[])) = 0 OR list_contains(CAST($projects AS VARCHAR[]), r.project_id))
      AND (array_length(CAST($classes AS VARCHAR[])) = 0 OR list_contains(CAST($classes AS VARCHAR[]), r.workload_class))
      AND (array_length(CAST($accelerators AS VARCHAR[])) = 0 OR list_contains(CAST($accelerators AS VARCHAR[]), r.accelerator_type))
      AND ($needle = ''
           OR strpos(lower(r.run_id), $needle) > 0
           OR strpos(lower(coalesce(r.job_id, '')), $needle) > 0
           OR strpos(lower(coalesce(r.model_name, '')), $needle) > 0
           OR strpos(lower(coalesce(r.experiment_id, '')), $needle) > 0)
    UNION ALL
    -- The one row is there even when no run matched.
    SELECT NULL, NULL, NULL, NULL, NULL, NULL, 0
    WHERE $group_by IS NULL
)
SELECT
    group_value,
    CAST(sum(run) AS BIGINT) AS runs,
    coalesce(sum(effective_cost), 0) AS started_run_cost,
    coalesce(sum(tokens_in), 0) + coalesce(sum(tokens_out), 0) AS tokens,
    sum(mean_utilisation_pct * accelerator_hours) / nullif(sum(accelerator_hours) FILTER (WHERE mean_utilisation_pct IS NOT NULL), 0)
        AS mean_utilisation_pct
FROM chosen
GROUP BY group_value
ORDER BY started_run_cost DESC, group_value
