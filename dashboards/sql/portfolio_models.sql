-- @query: One model's USD per million tokens on each family it ran on, side by side
--   (model_portfolio): the months that overlap the day range, of a chosen workload class.
--   Accelerator, team and project filters do not apply (the point is to see every side).
-- @param classes: the workload classes chosen (VARCHAR[]; empty: all)
-- @param end_day: the range's last UTC day (DATE, inclusive)
-- @param start_day: the range's first UTC day (DATE, inclusive)
SELECT
    m.month,
    m.model,
    m.workload_class,
    m.venue,
    m.family,
    CAST(m.tokens AS DOUBLE) AS tokens,
    m.effective_cost,
    m.cost_per_million_tokens,
    m.times_cheapest,
    m.cheapest
FROM model_portfolio AS m
WHERE m.month BETWEEN CAST(date_trunc('month', CAST($start_day AS DATE)) AS DATE) AND CAST($end_day AS DATE)
  AND (array_length(CAST($classes AS VARCHAR[])) = 0 OR list_contains(CAST($classes AS VARCHAR[]), m.workload_class))
ORDER BY m.month, m.model, m.workload_class, m.cost_per_million_tokens, m.family
