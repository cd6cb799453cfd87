-- @query: The runs the filters and the search find (fragments/runs_found.sql: started, else
--   submitted, on a UTC day in [$start_day, $end_day], in the filters, with $needle in the run
--   id, job id, model or experiment): one row ($group_by null, and the row is there without runs),
--   or one per run-owner team ('__unallocated__' without one), provider ('(none)' for a run
--   that held no billed resource), experiment or model ('(none)' without one). How many ran,
--   the cost of runs started (USD), their tokens and their mean utilisation (percent, weighted
--   by accelerator-hours, over the runs with telemetry; null without any). The one query of these figures: the Overview and Runs pages,
--   the mean-utilisation alert rule and the month report run it.
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
    FROM runs_found AS r
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
