-- @query: One experiment or model and one of two calendar months (by the runs' start):
--   the cost of its runs (USD), tokens and runs (cost_per_run), for the report's top lists and
--   movers.
-- @param month_start: first day of the month (DATE).
-- @param previous_start: first day of the month before (DATE).
WITH runs AS (
    SELECT CAST(date_trunc('month', started_at) AS DATE) AS month, *
    FROM cost_per_run
    WHERE CAST(date_trunc('month', started_at) AS DATE) IN ($month_start, $previous_start)
)
SELECT 'experiment' AS grouping, coalesce(experiment_id, '(none)') AS name, month,
       sum(effective_cost) AS effective_cost,
       sum(coalesce(tokens_in, 0) + coalesce(tokens_out, 0)) AS tokens, count(*) AS runs
FROM runs GROUP BY ALL
UNION ALL
SELECT 'model', coalesce(model_name, '(none)'), month,
       sum(effective_cost), sum(coalesce(tokens_in, 0) + coalesce(tokens_out, 0)), count(*)
FROM runs GROUP BY ALL
ORDER BY grouping, name, month
