-- @query: commitment_plan's rows for one term ($term: 1y or 3y), by accelerator type and region: what the demo's printout and the Commitments page show (the one query of the plan's figures).
-- @param term: 1y or 3y (VARCHAR).
SELECT
    accelerator_type, region, term, days, first_hour, last_hour, hours,
    paid_accelerator_hours, queued_accelerator_hours, failed_accelerator_hours, peak_demand_accelerators,
    on_demand_per_hour, committed_per_hour, price_as_of, price_source, break_even_utilisation,
    committed_now, recommended_accelerators, recommended_cost, recommended_savings_vs_on_demand,
    recommended_savings_vs_current, on_demand_cost, current_cost, commitment_utilisation, hours_above_share,
    demand_fall_accelerators, demand_fall_cost, demand_fall_savings_vs_on_demand, demand_fall_savings_vs_current,
    without_failed_accelerators, without_failed_cost, without_failed_savings_vs_on_demand,
    without_failed_savings_vs_current, busy_share, busy_accelerators, idle_committed_accelerators, flag
FROM commitment_plan
WHERE term = CAST($term AS VARCHAR)
ORDER BY accelerator_type, region
