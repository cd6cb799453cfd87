-- @query: One of the five runs with the highest effective cost, highest first.
SELECT run_id, team, workload_class, accelerator_hours, effective_cost, cost_per_million_tokens
FROM cost_per_run
ORDER BY effective_cost DESC
LIMIT 5
