-- @query: One model and workload class among the twelve with the highest effective cost: its
--   tokens (in + out) and cost, highest cost first.
SELECT model_name, workload_class,
       coalesce(sum(tokens_in), 0) + coalesce(sum(tokens_out), 0) AS tokens,
       sum(effective_cost) AS cost
FROM cost_per_million_tokens
GROUP BY model_name, workload_class
ORDER BY cost DESC
LIMIT 12
