-- @query: Where each provider's bill went, per calendar month (UTC) that overlaps [$start_day,
--   $end_day]: its effective cost split into cost of runs, unallocated idle, unused commitment,
--   unused reservation and shared cost (cost_explorer_rows' parts, which add up to every row),
--   beside its billed cost and credits (spend_daily by usage month).
-- @param end_day: the range's last UTC day (DATE, inclusive)
-- @param start_day: the range's first UTC day (DATE, inclusive)
WITH parts AS (
    SELECT
        CAST(date_trunc('month', c.day) AS DATE) AS month,
        c.provider,
        coalesce(sum(c.effective_cost) FILTER (WHERE c.cost_part = 'run'), 0) AS run_cost_usd,
        coalesce(sum(c.effective_cost) FILTER (WHERE c.cost_part = 'unallocated_idle'), 0) AS idle_usd,
        coalesce(sum(c.effective_cost) FILTER (WHERE c.cost_part = 'unused_commitment'), 0) AS unused_commitment_usd,
        coalesce(sum(c.effective_cost) FILTER (WHERE c.cost_part = 'unused_reservation'), 0) AS unused_reservation_usd,
        coalesce(sum(c.effective_cost) FILTER (WHERE c.cost_part = 'shared'), 0) AS shared_usd,
        sum(c.effective_cost) AS effective_usd
    FROM cost_explorer_rows AS c
    GROUP BY 1, 2
),
bill AS (
    SELECT
        CAST(date_trunc('month', s.day) AS DATE) AS month,
        s.provider,
        sum(s.billed_cost) AS billed_usd,
        sum(s.credits_total) AS credits_usd
    FROM spend_daily AS s
    GROUP BY 1, 2
)
SELECT
    p.month,
    p.provider,
    b.billed_usd,
    b.credits_usd,
    p.effective_usd,
    p.run_cost_usd,
    p.idle_usd,
    p.unused_commitment_usd,
    p.unused_reservation_usd,
    p.shared_usd
FROM parts AS p
LEFT JOIN bill AS b USING (month, provider)
WHERE p.month BETWEEN CAST(date_trunc('month', CAST($start_day AS DATE)) AS DATE) AND CAST($end_day AS DATE)
ORDER BY p.month, p.effective_usd DESC, p.provider
