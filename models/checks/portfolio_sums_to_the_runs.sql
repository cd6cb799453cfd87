-- @query: One row when the self-hosted effective cost accelerator_portfolio spreads over
--   families and classes is not the runs' effective cost (cost_per_run): both, and the
--   difference (USD).
-- @row: portfolio {portfolio} against runs {runs}
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
WHERE p.usd <> r.usd
