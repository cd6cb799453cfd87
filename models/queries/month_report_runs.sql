-- @query: One run that started in a calendar month (cost_per_run: its whole cost, USD), with
--   its experiment, model, tokens and cost per million tokens, highest cost first.
-- @param month_start: first day of the month (DATE).
SELECT run_id, team, experiment_id, model_name, workload_class, accelerator_type,
       accelerator_hours, effective_cost, coalesce(tokens_in, 0) + coalesce(tokens_out, 0) AS tokens,
       cost_per_million_tokens
FROM cost_per_run
WHERE CAST(date_trunc('month', started_at) AS DATE) = $month_start
ORDER BY effective_cost DESC, run_id
