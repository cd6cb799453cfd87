-- @query: One row: the whole bill's row count, billed cost, credits and effective cost (USD) and first and
--   last usage days: Google's export and every FOCUS provider's rows (each FOCUS row to the
--   nano-dollar, as the books take it).
WITH bill AS (
    SELECT usage_day AS day, cost_usd AS billed, credits_total_usd AS credits, cost_usd + credits_total_usd AS effective
    FROM billing_line_items
    UNION ALL
    -- As spend_daily: a FOCUS Credit row is credits, not billed cost; what else separates
    -- EffectiveCost from BilledCost is the commitments' amortisation.
    SELECT charge_day,
           CASE WHEN charge_category = 'Credit' THEN 0 ELSE from_nanos(to_nanos(billed_cost)) END,
           CASE WHEN charge_category = 'Credit' THEN from_nanos(to_nanos(billed_cost)) ELSE 0 END,
           from_nanos(to_nanos(coalesce(effective_cost, billed_cost)))
    FROM focus_line_items
)
SELECT count(*) AS rows_, sum(billed) AS billed, sum(credits) AS credits,
       sum(effective) AS effective,
       min(day) AS first_day, max(day) AS last_day
FROM bill
