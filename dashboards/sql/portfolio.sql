-- @query: Where each workload class ran, per month (accelerator_portfolio in the filters): per
--   family (accelerator type or managed provider) its cost, paid accelerator-hours, busy share,
--   USD per accelerator-hour, idle shares, USD per delivered PFLOP-hour and USD per million
--   tokens.
SELECT
    p.month,
    p.workload_class,
    p.venue,
    p.family,
    coalesce(p.runs, p.requests) AS runs_or_requests,
    p.effective_cost AS cost_usd,
    p.paid_accelerator_hours,
    p.busy_pct,
    p.effective_cost_per_accelerator_hour AS usd_per_accelerator_hour,
    p.allocated_idle_share,
    p.unallocated_idle_share,
    p.cost_per_delivered_pflop_hour AS usd_per_pflop_hour,
    p.mean_mfu_measured_pct,
    CAST(p.tokens AS DOUBLE) AS tokens,
    p.cost_per_million_tokens AS usd_per_million_tokens
FROM portfolio_in_filters AS p
ORDER BY p.month, p.workload_class, p.cost_per_million_tokens NULLS LAST, p.family
