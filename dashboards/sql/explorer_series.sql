-- Effective cost per period and group in [$start_day, $end_day] (cost_explorer_rows in the
-- explorer's filters). Params: the explorer's filters, $dimension, $grain, $start_day, $end_day.
SELECT g.period, g.group_value, sum(g.effective_cost) AS effective_usd
FROM explorer_grouped AS g
WHERE g.day BETWEEN CAST($start_day AS DATE) AND CAST($end_day AS DATE)
GROUP BY g.period, g.group_value
ORDER BY g.period, effective_usd DESC, g.group_value
