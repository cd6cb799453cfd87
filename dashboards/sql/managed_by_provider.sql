-- @query: Managed inference per provider and model in the filters (managed_in_filters: days,
--   team, workload class): requests, error rate, tokens, cost and USD per million tokens (the
--   rule of tokens_by.sql), and the worst daily p95 latency logged.
WITH grouped AS (
    SELECT
        provider,
        model,
        sum(requests) AS requests,
        sum(failed_requests) AS failed_requests,
        sum(input_tokens + output_tokens) AS tokens,
        sum(output_tokens) AS tokens_out,
        sum(cost) AS cost,
        max(latency_p95_ms) AS worst_daily_p95_ms
    FROM managed_in_filters
    GROUP BY provider, model
)
SELECT
    provider,
    model,
    requests,
    CASE WHEN requests > 0 THEN CAST(failed_requests AS DOUBLE) / CAST(requests AS DOUBLE) END AS error_rate,
    CAST(tokens AS DOUBLE) AS tokens,
    cost AS cost_usd,
    CAST(CAST(cost * 1000000000 AS HUGEINT) * 1000000 // nullif(tokens, 0) AS DECIMAL(38, 0))
        * CAST(0.000000001 AS DECIMAL(10, 9)) AS usd_per_million_tokens,
    CAST(CAST(cost * 1000000000 AS HUGEINT) * 1000000 // nullif(tokens_out, 0) AS DECIMAL(38, 0))
        * CAST(0.000000001 AS DECIMAL(10, 9)) AS usd_per_million_output_tokens,
    worst_daily_p95_ms
FROM grouped
ORDER BY cost DESC, provider, model
