-- @table: Cost per million tokens per UTC day (the day the run started), team, model, workload class and accelerator type. USD.
-- @grain day: day
-- @col day: UTC day the runs started.
-- @col team: Team.
-- @col model_name: Model.
-- @col workload_class: Workload class.
-- @col accelerator_type: Canonical accelerator type.
-- @col runs: Runs with tokens.
-- @col tokens_in: Tokens read.
-- @col tokens_out: Tokens written.
-- @col effective_cost: Cost of those runs (USD).
-- @col cost_per_million_tokens: effective_cost / ((tokens_in + tokens_out) / 1e6) (USD, truncated to 9 places).
-- @col cost_per_million_output_tokens: effective_cost / (tokens_out / 1e6) (USD); null without output tokens.
WITH grouped AS (
    SELECT
        CAST(started_at AS DATE) AS day,
        team,
        model_name,
        workload_class,
        accelerator_type,
        count(*) AS runs,
        sum(tokens_in) AS tokens_in,
        sum(tokens_out) AS tokens_out,
        sum(effective_cost) AS effective_cost
    FROM cost_per_run
    WHERE started_at IS NOT NULL AND coalesce(tokens_in, 0) + coalesce(tokens_out, 0) > 0
    GROUP BY ALL
)
SELECT
    *,
    from_nanos(to_nanos(effective_cost) * 1000000 // CAST(coalesce(tokens_in, 0) + coalesce(tokens_out, 0) AS HUGEINT)) AS cost_per_million_tokens,
    CASE WHEN coalesce(tokens_out, 0) > 0
         THEN from_nanos(to_nanos(effective_cost) * 1000000 // CAST(tokens_out AS HUGEINT)) END AS cost_per_million_output_tokens
FROM grouped
ORDER BY day, team, model_name, workload_class, accelerator_type
