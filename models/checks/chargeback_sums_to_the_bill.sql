-- @query: One row when team_chargeback's charges in all (sum of total_cost) are not the
--   effective cost of the bill it splits (Google's export: spend_daily's provider gcp; every
--   FOCUS provider's rows, each taken to the nano-dollar as billing_hourly spreads them): both,
--   and the difference (USD).
-- @row: charged {charged} against effective {effective}
WITH charged AS (
    SELECT coalesce(sum(total_cost), 0) AS usd FROM team_chargeback
),
billed AS (
    SELECT
        coalesce((SELECT sum(effective_cost) FROM spend_daily WHERE provider = 'gcp'), 0)
        + coalesce((SELECT from_nanos(sum(to_nanos(coalesce(effective_cost, billed_cost)))) FROM focus_line_items), 0) AS usd
)
SELECT
    c.usd AS charged,
    b.usd AS effective,
    c.usd - b.usd AS difference
FROM charged AS c, billed AS b
WHERE c.usd <> b.usd
