-- @query: One row: what team_chargeback charges in all (sum of total_cost) against the effective cost of the bill it splits (sum of spend_daily.effective_cost of Google's export, provider gcp: other providers' FOCUS rows are not in team_chargeback yet), and the difference (USD; zero when chargeback sums to the bill).
WITH charged AS (
    SELECT coalesce(sum(total_cost), 0) AS usd FROM team_chargeback
),
billed AS (
    SELECT coalesce(sum(effective_cost), 0) AS usd FROM spend_daily WHERE provider = 'gcp'
)
SELECT
    c.usd AS charged,
    b.usd AS effective,
    c.usd - b.usd AS difference
FROM charged AS c, billed AS b
