-- @query: Effective cost per period and group in [$start_day, $end_day] (cost_explorer_rows in
--   the explorer's filters).
-- @param end_day: the range's last UTC day (DATE, inclusive)
-- @param start_day: the range's first UTC day (DATE, inclusive)
SELECT g.period, g.group_value, sum(g.effective_cost) AS effective_cost
FROM explorer_grouped AS g
WHERE g.day BETWEEN CAST($start_day AS DATE) AND CAST($end_day AS DATE)
GROUP BY g.period, g.group_value
ORDER BY g.period, effective_cost DESC, g.group_value
