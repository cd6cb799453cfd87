-- @query: One row: the self-hosted effective cost accelerator_portfolio spreads over families and classes against the runs' effective cost (cost_per_run), and the difference (USD; zero when every run's cost is in exactly one family and class).
WITH portfolio AS (
    SELECT coalesce(sum(effective_cost), 0) AS usd FROM accelerator_portfolio WHERE venue = 'self_hosted'
),
runs AS (
    SELECT coalesce(sum(effective_cost), 0) AS usd FROM cost_per_run
)
SELECT
    p.usd AS portfolio,
    r.usd AS runs,
    p.usd - r.usd AS difference
FROM portfolio AS p, runs AS r
