-- @query: Where each workload class ran, per calendar month (accelerator_portfolio), for the
--   months that overlap [$start_day, $end_day] (null: no bound; only the latest month with
--   $latest_only), of the chosen workload classes and families (accelerator types: the
--   accelerator filter drops managed providers): per family (accelerator type or managed
--   provider) its runs or requests, cost, paid accelerator-hours, busy share, effective cost per
--   accelerator-hour, allocated idle as a share of the cost of its runs, the family's
--   unallocated idle as a share of its accelerator resource cost, cost per delivered
--   PFLOP-hour, mean MFU, tokens and cost per million tokens, its rank by that rate in its
--   class and month (families with a rate; 1 the cheapest), how many the class ran on, and
--   its rate over the cheapest's (one DOUBLE division of the nano-dollar rates). With
--   $per_class_limit, only that many of the cheapest families with a rate per class and month.
--   The one query of the portfolio: the CLI and the Portfolio page run it.
-- @param start_day: the first UTC day (DATE, inclusive); null for no bound.
-- @param end_day: the last UTC day (DATE, inclusive); null for no bound.
-- @param classes: the workload classes chosen (VARCHAR[]; empty: all).
-- @param accelerators: the accelerator types chosen (VARCHAR[]; empty: all, providers too).
-- @param latest_only: true for the latest month only.
-- @param per_class_limit: how many of the cheapest families per class and month; null for
--   every family.
WITH chosen AS (
    SELECT p.*
    FROM accelerator_portfolio AS p
    WHERE (CAST($start_day AS DATE) IS NULL
           OR p.month >= CAST(date_trunc('month', CAST($start_day AS DATE)) AS DATE))
      AND (CAST($end_day AS DATE) IS NULL OR p.month <= CAST($end_day AS DATE))
      AND (NOT CAST($latest_only AS BOOLEAN) OR p.month = (SELECT max(l.month) FROM accelerator_portfolio AS l))
      AND (array_length(CAST($classes AS VARCHAR[])) = 0 OR list_contains(CAST($classes AS VARCHAR[]), p.workload_class))
      AND (array_length(CAST($accelerators AS VARCHAR[])) = 0 OR list_contains(CAST($accelerators AS VARCHAR[]), p.family))
),
ranked AS (
    SELECT
        c.*,
        CASE WHEN c.cost_per_million_tokens IS NOT NULL AND c.family IS NOT NULL AND c.workload_class IS NOT NULL
             THEN row_number() OVER (
                 PARTITION BY c.month, c.workload_class, c.cost_per_million_tokens IS NOT NULL AND c.family IS NOT NULL
                 ORDER BY c.cost_per_million_tokens, c.family) END AS rank_,
        sum(CASE WHEN c.cost_per_million_tokens IS NOT NULL AND c.family IS NOT NULL THEN 1 ELSE 0 END)
            OVER (PARTITION BY c.month, c.workload_class) AS families,
        min(c.cost_per_million_tokens) OVER (PARTITION BY c.month, c.workload_class) AS cheapest
    FROM chosen AS c
)
SELECT
    month,
    workload_class,
    venue,
    family,
    runs,
    requests,
    effective_cost,
    paid_accelerator_hours,
    busy_pct,
    effective_cost_per_accelerator_hour,
    allocated_idle_share AS allocated_idle_share_of_run_cost,
    unallocated_idle_share AS family_unallocated_idle_share_of_cost,
    cost_per_delivered_pflop_hour,
    mean_mfu_measured_pct,
    tokens,
    cost_per_million_tokens,
    rank_,
    families,
    CASE WHEN cheapest > 0
         THEN CAST(to_nanos(cost_per_million_tokens) AS DOUBLE) / CAST(to_nanos(cheapest) AS DOUBLE) END AS times_cheapest
FROM ranked
WHERE CAST($per_class_limit AS BIGINT) IS NULL OR rank_ <= CAST($per_class_limit AS BIGINT)
ORDER BY month, workload_class, rank_ NULLS LAST, cost_per_million_tokens NULLS LAST, family
