-- @query: The commitment plan for one term ($term: 1y or 3y), per accelerator type and region
--   (commitment_plan, built over the last commitment_plan_days days; the page's filters do not
--   apply: the plan is over its own window).
-- @param term: the commitment term: 1y or 3y
SELECT
    accelerator_type,
    region,
    committed_now,
    recommended_accelerators,
    break_even_utilisation,
    busy_share,
    busy_accelerators,
    idle_committed_accelerators,
    recommended_cost AS plan_cost_usd,
    on_demand_cost AS on_demand_cost_usd,
    current_cost AS current_cost_usd,
    recommended_savings_vs_on_demand AS savings_vs_on_demand_usd,
    recommended_savings_vs_current AS savings_vs_current_usd,
    demand_fall_accelerators,
    demand_fall_savings_vs_on_demand AS demand_fall_savings_usd,
    without_failed_accelerators,
    without_failed_savings_vs_on_demand AS without_failed_savings_usd,
    paid_accelerator_hours,
    queued_accelerator_hours,
    failed_accelerator_hours,
    peak_demand_accelerators,
    hours,
    days,
    first_hour,
    last_hour,
    on_demand_per_hour,
    committed_per_hour,
    price_as_of,
    price_source,
    flag
FROM commitment_plan
WHERE term = CAST($term AS VARCHAR)
ORDER BY accelerator_type, region
