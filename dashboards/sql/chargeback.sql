-- @query: Chargeback per calendar month and run-owner team (team_chargeback) for the months
--   that overlap [$start_day, $end_day], under the configured shared-cost policy, with each
--   month's billed cost and credits (spend_daily by usage month).
-- @param end_day: the range's last UTC day (DATE, inclusive)
-- @param start_day: the range's first UTC day (DATE, inclusive)
WITH months AS (
    SELECT CAST(date_trunc('month', day) AS DATE) AS month,
           sum(billed_cost) AS billed_usd,
           sum(credits_total) AS credits_usd,
           sum(effective_cost) AS effective_usd
    FROM spend_daily
    GROUP BY 1
)
SELECT
    c.month,
    c.team,
    c.policy,
    c.allocated_cost AS run_cost_usd,
    c.idle_cost_shared AS idle_usd,
    c.unused_commitment_shared AS unused_commitment_usd,
    c.unused_reservation_shared AS unused_reservation_usd,
    c.shared_cost AS shared_usd,
    c.total_cost AS chargeback_usd,
    c.month_unallocated_idle_cost AS month_idle_usd,
    c.month_unused_commitment_cost AS month_unused_commitment_usd,
    c.month_unused_reservation_cost AS month_unused_reservation_usd,
    c.month_shared_cost AS month_shared_usd,
    m.billed_usd AS month_billed_usd,
    m.credits_usd AS month_credits_usd,
    m.effective_usd AS month_effective_usd
FROM team_chargeback AS c
LEFT JOIN months AS m USING (month)
WHERE c.month BETWEEN CAST(date_trunc('month', CAST($start_day AS DATE)) AS DATE) AND CAST($end_day AS DATE)
ORDER BY c.month, c.total_cost DESC, c.team
