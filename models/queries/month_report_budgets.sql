-- @query: One budget's period that overlaps a calendar month (budget_status): spend to date,
--   amount, percent used, forecast, thresholds crossed, whether over budget.
-- @param month_start: first day of the month (DATE).
-- @param month_end: last day of the month (DATE).
SELECT budget, scope, period_kind, period_key, period_start, period_end, amount_usd,
       spend_to_date, percent_used, forecast, forecast_percent, thresholds_crossed, over_budget,
       forecast_overrun
FROM budget_status
WHERE period_start <= $month_end AND period_end >= $month_start
ORDER BY budget, period_start
