-- @query: Where each workload class ran in the latest month of accelerator_portfolio, cheapest first by USD per million tokens: the two cheapest families (accelerator type or managed provider) of each class with tokens, their tokens, busy share and USD per delivered PFLOP-hour (measured figures only), and how many families the class ran on.
WITH latest AS (
    SELECT max(month) AS month FROM accelerator_portfolio
),
ranked AS (
    SELECT
        p.month,
        p.workload_class,
        p.venue,
        p.family,
        p.cost_per_million_tokens,
        p.tokens,
        p.busy_pct,
        p.cost_per_delivered_pflop_hour,
        row_number() OVER (PARTITION BY p.workload_class ORDER BY p.cost_per_million_tokens, p.family) AS rank_,
        count(*) OVER (PARTITION BY p.workload_class) AS families
    FROM accelerator_portfolio AS p
    JOIN latest AS l ON p.month = l.month
    WHERE p.cost_per_million_tokens IS NOT NULL AND p.family IS NOT NULL AND p.workload_class IS NOT NULL
)
SELECT month, workload_class, venue, family, cost_per_million_tokens, tokens, busy_pct, cost_per_delivered_pflop_hour, rank_, families
FROM ranked
WHERE rank_ <= 2
ORDER BY workload_class, rank_
