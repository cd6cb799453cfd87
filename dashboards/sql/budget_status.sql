-- @query: Every budget and period, current periods first (budget_status).
SELECT
    b.budget,
    b.period_key,
    b.period_start,
    b.period_end,
    b.is_current,
    b.scope,
    b.amount_usd,
    b.spend_to_date,
    b.forecast,
    b.percent_used,
    b.forecast_percent,
    b.thresholds_crossed,
    b.over_budget,
    b.forecast_overrun,
    b.as_of
FROM budget_status AS b
ORDER BY b.is_current DESC, b.period_start DESC, b.budget, b.period_kind, b.period_key
LIMIT 5000
