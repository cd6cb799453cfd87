-- @query: Spend in the date range (spend_daily: team and project filters apply).
SELECT
    coalesce(sum(s.billed_cost), 0) AS billed_usd,
    coalesce(sum(s.credits_total), 0) AS credits_usd,
    coalesce(sum(s.effective_cost), 0) AS effective_usd,
    count(DISTINCT s.day) AS days
FROM spend_in_filters AS s
