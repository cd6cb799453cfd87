-- @query: One row: the whole bill's row count, billed and effective cost (USD) and first and
--   last usage days: Google's export and every FOCUS provider's rows (each FOCUS row to the
--   nano-dollar, as the books take it).
WITH bill AS (
    SELECT usage_day AS day, cost_usd AS billed, cost_usd + credits_total_usd AS effective
    FROM billing_line_items
    UNION ALL
    SELECT charge_day, from_nanos(to_nanos(billed_cost)), from_nanos(to_nanos(coalesce(effective_cost, billed_cost)))
    FROM focus_line_items
)
SELECT count(*) AS rows_, sum(billed) AS billed,
       sum(effective) AS effective,
       min(day) AS first_day, max(day) AS last_day
FROM bill
