-- @query: Effective cost per UTC day in [$start_day, $end_day] and its running total
--   (cost_explorer_rows in the explorer's filters).
-- @param end_day: the range's last UTC day (DATE, inclusive)
-- @param start_day: the range's first UTC day (DATE, inclusive)
WITH daily AS (
    SELECT e.day, sum(e.effective_cost) AS effective_cost
    FROM explorer_in_filters AS e
    WHERE e.day BETWEEN CAST($start_day AS DATE) AND CAST($end_day AS DATE)
    GROUP BY e.day
)
SELECT day, effective_cost, sum(effective_cost) OVER (ORDER BY day) AS cumulative_effective_cost
FROM daily
ORDER BY day
