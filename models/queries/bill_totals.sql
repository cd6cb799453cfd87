-- @query: One row: the whole bill's row count, billed and effective cost (USD) and first and
--   last usage days.
SELECT count(*) AS rows_, sum(cost_usd) AS billed,
       sum(cost_usd + credits_total_usd) AS effective,
       min(usage_day) AS first_day, max(usage_day) AS last_day
FROM billing_line_items
