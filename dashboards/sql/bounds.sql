-- @query: First and last UTC day with data: the default date range.
WITH days AS (
    SELECT run_day AS day FROM cost_per_run
    UNION ALL
    SELECT day FROM spend_daily
    UNION ALL
    SELECT day FROM idle_capacity_daily
)
SELECT min(day) AS first_day, max(day) AS last_day
FROM days
