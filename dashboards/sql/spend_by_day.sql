-- @query: Effective cost per UTC day of the chosen providers, teams and projects (spend_daily)
--   from $from_day to the range's last day, each row with the first day spend_daily holds: the
--   daily spend the Overview's month forecast is worked from (figures/forecast.py, the method
--   budgets use).
-- @param from_day: the first UTC day wanted (DATE): the month's first, or the run rate's
--   window's, whichever is earlier
SELECT
    s.day,
    sum(s.effective_cost) AS effective_cost,
    (SELECT min(d.day) FROM spend_daily AS d) AS first_day
FROM spend_in_scope AS s
CROSS JOIN filter_values AS f
WHERE s.day BETWEEN CAST($from_day AS DATE) AND f.end_day
GROUP BY s.day
ORDER BY s.day
