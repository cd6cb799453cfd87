-- @query: Managed inference (managed_inference_daily) over the UTC days in [$start_day, $end_day]
--   (null: no bound), of the chosen teams (gateway requests: providers' exports carry no team)
--   and workload classes: one row, or one per provider and model ($group_by 'provider_model';
--   provider and model are null in the one row). Its managed spend (not part of the cloud bill),
--   requests, error rate, tokens, the managed cost per million (output) tokens by the rule of
--   cost_per_million_tokens, the worst daily p95 latency logged, how many providers, the
--   requests nobody priced, and the first and last day. The one query of these figures: the CLI
--   and the tokens page run it.
-- @param start_day: the first UTC day (DATE, inclusive); null for no bound.
-- @param end_day: the last UTC day (DATE, inclusive); null for no bound.
-- @param teams: the teams chosen (VARCHAR[]); empty: all, provider exports included.
-- @param classes: the workload classes chosen (VARCHAR[]); empty: all.
-- @param group_by: 'provider_model' for a row per provider and model; null for one row.
-- The group is chosen in a subquery and grouped by outside it (portable SQL: bqemulator binds
-- `GROUP BY` of a CASE over a parameter as the columns inside it).
WITH chosen AS (
    SELECT
        CASE WHEN $group_by = 'provider_model' THEN m.provider END AS provider_,
        CASE WHEN $group_by = 'provider_model' THEN m.model END AS model_,
        m.*
    FROM managed_inference_daily AS m
    WHERE (CAST($start_day AS DATE) IS NULL OR m.day >= CAST($start_day AS DATE))
      AND (CAST($end_day AS DATE) IS NULL OR m.day <= CAST($end_day AS DATE))
      AND (array_length(CAST($teams AS VARCHAR[])) = 0 OR list_contains(CAST($teams AS VARCHAR[]), m.team))
      AND (array_length(CAST($classes AS VARCHAR[])) = 0 OR list_contains(CAST($classes AS VARCHAR[]), m.workload_class))
),
grouped AS (
    SELECT
        provider_,
        model_,
        sum(requests) AS managed_requests,
        sum(failed_requests) AS failed_requests,
        sum(input_tokens + output_tokens) AS managed_tokens,
        sum(output_tokens) AS output_tokens,
        sum(cost) AS managed_spend,
        max(latency_p95_ms) AS worst_daily_p95_ms,
        count(DISTINCT provider) AS providers,
        coalesce(sum(unpriced_requests), 0) AS unpriced_requests,
        min(day) AS first_day,
        max(day) AS last_day
    FROM chosen
    GROUP BY provider_, model_
)
SELECT
    provider_ AS provider,
    model_ AS model,
    managed_requests,
    CASE WHEN managed_requests > 0
         THEN CAST(failed_requests AS DOUBLE) / CAST(managed_requests AS DOUBLE) END AS managed_error_rate,
    managed_tokens,
    managed_spend,
    from_nanos(to_nanos(managed_spend) * 1000000 // nullif(managed_tokens, 0)) AS managed_cost_per_million_tokens,
    from_nanos(to_nanos(managed_spend) * 1000000 // nullif(output_tokens, 0)) AS managed_cost_per_million_output_tokens,
    worst_daily_p95_ms,
    providers,
    unpriced_requests,
    first_day,
    last_day
FROM grouped
ORDER BY managed_spend DESC, provider, model
