-- @query: The figures a closed month is watched by, per calendar month (UTC): each team's
--   chargeback (team_chargeback.total_cost, named as the month report's totals name it) and the
--   month's effective cost (spend_daily). A run compares them before and after it builds.
SELECT month, 'chargeback ' || team || ' total_cost' AS figure, total_cost AS value
FROM team_chargeback
UNION ALL
SELECT CAST(date_trunc('month', day) AS DATE) AS month, 'effective_cost' AS figure,
       sum(effective_cost) AS value
FROM spend_daily
GROUP BY 1, 2
