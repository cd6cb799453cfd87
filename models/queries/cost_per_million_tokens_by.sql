-- @query: Cost per million tokens of the runs with tokens in the filters (fragments/
--   runs_in_filters.sql: started, else submitted, on a UTC day in [$start_day, $end_day]):
--   one row per value of $dimension (and of $second_dimension, and per day with $by_day), or one
--   row for all of them ($dimension null; its dimension_value is then null). The cost of those
--   runs (started_run_cost), their tokens (in + out) and output tokens, and the rate by the rule
--   of cost_per_million_tokens: nano-dollars x 1e6 // tokens, an exact DECIMAL truncated to 9
--   places. The one query of the figure: the CLI, the tokens page and the month report run it.
-- @param dimension: model_name, experiment_id, team, workload_class, accelerator_type or
--   project_id (callers whitelist it); null for one row over every run.
-- @param second_dimension: a second column of the same list to group by (second_value); null
--   for none.
-- @param by_day: true for a row per UTC day (run_day) as well.
-- The groups are chosen in a subquery and grouped by outside it (portable SQL: bqemulator binds
-- `GROUP BY` of a CASE over a parameter as the columns inside it).
WITH chosen AS (
    SELECT
        CASE WHEN CAST($by_day AS BOOLEAN) THEN r.run_day END AS day,
        CASE WHEN $dimension IS NOT NULL THEN coalesce(CASE $dimension
            WHEN 'model_name' THEN r.model_name
            WHEN 'experiment_id' THEN r.experiment_id
            WHEN 'team' THEN r.team
            WHEN 'workload_class' THEN r.workload_class
            WHEN 'accelerator_type' THEN r.accelerator_type
            WHEN 'project_id' THEN r.project_id
        END, '(none)') END AS dimension_value,
        CASE WHEN $second_dimension IS NOT NULL THEN coalesce(CASE $second_dimension
            WHEN 'model_name' THEN r.model_name
            WHEN 'experiment_id' THEN r.experiment_id
            WHEN 'team' THEN r.team
            WHEN 'workload_class' THEN r.workload_class
            WHEN 'accelerator_type' THEN r.accelerator_type
            WHEN 'project_id' THEN r.project_id
        END, '(none)') END AS second_value,
        coalesce(r.tokens_in, 0) + coalesce(r.tokens_out, 0) AS tokens,
        r.tokens_out,
        r.effective_cost
    FROM runs_in_filters AS r
    WHERE coalesce(r.tokens_in, 0) + coalesce(r.tokens_out, 0) > 0
),
grouped AS (
    SELECT
        day,
        dimension_value,
        second_value,
        count(*) AS runs,
        sum(tokens) AS tokens,
        sum(tokens_out) AS tokens_out,
        sum(effective_cost) AS started_run_cost
    FROM chosen
    GROUP BY day, dimension_value, second_value
)
SELECT
    day,
    dimension_value,
    second_value,
    runs,
    tokens,
    tokens_out,
    started_run_cost,
    from_nanos(to_nanos(started_run_cost) * 1000000 // tokens) AS cost_per_million_tokens,
    from_nanos(to_nanos(started_run_cost) * 1000000 // nullif(tokens_out, 0)) AS cost_per_million_output_tokens
FROM grouped
ORDER BY day, started_run_cost DESC, dimension_value, second_value
