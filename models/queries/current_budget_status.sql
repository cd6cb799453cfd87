-- @query: One budget's current period: percent used and forecast, thresholds crossed, whether
--   it is over budget, and whether it is forecast to overrun (where it asks for forecast alerts).
SELECT budget, period_key, percent_used, forecast_percent, thresholds_crossed, over_budget,
       forecast_overrun AND forecast_alerts AS overrun
FROM budget_status
WHERE is_current
ORDER BY budget
