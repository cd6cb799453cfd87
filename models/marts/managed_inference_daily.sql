-- @table: Managed inference per UTC day, provider, model, team, project and workload class: requests, error rate, tokens, cost, USD per million tokens and latency percentiles. From the gateway's requests (cost_per_request) and from providers' usage and cost exports; an export row is left out for a day, provider and model the gateway logged (the same traffic would count twice); the provider's other models that day, which bypassed the gateway, stay. Not part of the cloud bill: its own line. USD.
-- @grain day: day
-- @col day: UTC day.
-- @col source: gateway (request logs) or provider_export (usage and cost buckets).
-- @col provider: Provider.
-- @col model: Model.
-- @col team: Team of the calling keys (gateway); null for exports.
-- @col project_id: Provider project (exports); null for gateway rows.
-- @col workload_class: Workload class (gateway: request tag; exports: batch_inference for the batch API, else online_inference).
-- @col requests: Requests.
-- @col failed_requests: Requests that failed.
-- @col error_rate: failed_requests / requests.
-- @col unpriced_requests: Requests nobody priced (no gateway figure and no price in the book): their cost is missing from cost.
-- @col price_mismatches: Requests where the gateway's figure and the price book's differ (cost_per_request.price_mismatch).
-- @col input_tokens: Input tokens, cached ones included.
-- @col cached_input_tokens: Input tokens served from the provider's prompt cache.
-- @col output_tokens: Output tokens.
-- @col cost: What the requests cost (USD): gateway rows sum cost_per_request.cost; export rows the provider's charged amount for the model, else the price book on the tokens.
-- @col cost_per_million_tokens: cost / ((input + output tokens) / 1e6), USD, truncated to 9 places.
-- @col cost_per_million_input_tokens: cost / (input tokens / 1e6), USD: the blended rate a request's prompt carries.
-- @col cost_per_million_output_tokens: cost / (output tokens / 1e6), USD.
-- @col latency_p50_ms: Median request latency, ms (gateway rows where logged; null for exports).
-- @col latency_p95_ms: 95th percentile request latency, ms.
-- @col latency_p99_ms: 99th percentile request latency, ms.
-- @col time_to_first_token_p50_ms: Median time to first token, ms, where streamed.
WITH gateway AS (
    SELECT
        day,
        'gateway' AS source,
        provider,
        model,
        team,
        CAST(NULL AS VARCHAR) AS project_id,
        workload_class,
        count(*) AS requests,
        count(*) FILTER (WHERE status = 'failure') AS failed_requests,
        count(*) FILTER (WHERE cost_source = 'unpriced') AS unpriced_requests,
        count(*) FILTER (WHERE price_mismatch) AS price_mismatches,
        sum(prompt_tokens) AS input_tokens,
        sum(cached_tokens) AS cached_input_tokens,
        sum(completion_tokens) AS output_tokens,
        sum(to_nanos(cost)) AS cost_nanos,
        quantile_cont(latency_ms, 0.5) AS latency_p50_ms,
        quantile_cont(latency_ms, 0.95) AS latency_p95_ms,
        quantile_cont(latency_ms, 0.99) AS latency_p99_ms,
        quantile_cont(time_to_first_token_ms, 0.5) AS time_to_first_token_p50_ms
    FROM cost_per_request
    GROUP BY day, provider, model, team, workload_class
),
-- What the gateway logged, per day, provider and model: an export's row for the same is the
-- same traffic. Keyed on the model too, so a provider's traffic that bypassed the gateway
-- that day (other models, other projects' keys) stays. Not on project: gateway rows carry
-- none, so an export's project cannot be told apart from the gateway's traffic.
gateway_days AS (
    SELECT DISTINCT day, provider, model FROM gateway
),
usage AS (
    SELECT
        CAST(bucket_start AS DATE) AS day,
        provider,
        model,
        project_id,
        CASE WHEN batch THEN 'batch_inference' ELSE 'online_inference' END AS workload_class,
        sum(num_model_requests) AS requests,
        sum(input_tokens) AS input_tokens,
        sum(input_cached_tokens) AS cached_input_tokens,
        sum(output_tokens) AS output_tokens
    FROM managed_usage
    GROUP BY ALL
),
charged AS (
    SELECT CAST(bucket_start AS DATE) AS day, provider, model, project_id, sum(to_nanos(amount)) AS charged_nanos
    FROM managed_costs
    GROUP BY ALL
),
prices AS (
    SELECT
        provider,
        model,
        valid_from,
        lead(valid_from) OVER (PARTITION BY provider, model ORDER BY valid_from) AS valid_until,
        input_per_mtok,
        output_per_mtok,
        coalesce(cached_input_per_mtok, input_per_mtok) AS cached_per_mtok,
        per_request
    FROM managed_prices
),
usage_costed AS (
    SELECT
        u.*,
        -- One model's charge is split over its usage rows (batch and online, or projects
        -- without charges) by input + output tokens, floor of running sums, so they add up.
        CASE WHEN p.input_per_mtok IS NOT NULL THEN
            ((u.input_tokens - u.cached_input_tokens) * to_nanos(p.input_per_mtok)
              + u.cached_input_tokens * to_nanos(p.cached_per_mtok)
              + u.output_tokens * to_nanos(p.output_per_mtok)) // 1000000
            + u.requests * coalesce(to_nanos(p.per_request), 0)
        END AS book_nanos
    FROM usage AS u
    LEFT JOIN prices AS p
        ON p.provider = u.provider AND p.model = u.model
        AND u.day >= p.valid_from AND (p.valid_until IS NULL OR u.day < p.valid_until)
),
usage_shared AS (
    SELECT
        *,
        sum(input_tokens + output_tokens) OVER w AS running_tokens,
        sum(input_tokens + output_tokens) OVER (PARTITION BY day, provider, model, project_id) AS all_tokens
    FROM usage_costed
    WINDOW w AS (
        PARTITION BY day, provider, model, project_id ORDER BY workload_class
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    )
),
export AS (
    SELECT
        coalesce(u.day, c.day) AS day,
        'provider_export' AS source,
        coalesce(u.provider, c.provider) AS provider,
        coalesce(u.model, c.model) AS model,
        CAST(NULL AS VARCHAR) AS team,
        coalesce(u.project_id, c.project_id) AS project_id,
        coalesce(u.workload_class, 'online_inference') AS workload_class,
        coalesce(u.requests, 0) AS requests,
        CAST(NULL AS BIGINT) AS failed_requests,
        CASE WHEN c.charged_nanos IS NULL AND u.book_nanos IS NULL THEN coalesce(u.requests, 0) ELSE 0 END AS unpriced_requests,
        0 AS price_mismatches,
        coalesce(u.input_tokens, 0) AS input_tokens,
        coalesce(u.cached_input_tokens, 0) AS cached_input_tokens,
        coalesce(u.output_tokens, 0) AS output_tokens,
        CASE
            WHEN c.charged_nanos IS NULL THEN u.book_nanos
            WHEN u.all_tokens IS NULL OR u.all_tokens = 0 THEN c.charged_nanos
            ELSE c.charged_nanos * u.running_tokens // u.all_tokens
                 - c.charged_nanos * (u.running_tokens - u.input_tokens - u.output_tokens) // u.all_tokens
        END AS cost_nanos,
        CAST(NULL AS DOUBLE) AS latency_p50_ms,
        CAST(NULL AS DOUBLE) AS latency_p95_ms,
        CAST(NULL AS DOUBLE) AS latency_p99_ms,
        CAST(NULL AS DOUBLE) AS time_to_first_token_p50_ms
    FROM usage_shared AS u
    FULL OUTER JOIN charged AS c
        ON c.day = u.day AND c.provider = u.provider
        AND c.model IS NOT DISTINCT FROM u.model AND c.project_id IS NOT DISTINCT FROM u.project_id
),
rows AS (
    SELECT * FROM gateway
    UNION ALL
    SELECT e.* FROM export AS e
    WHERE NOT EXISTS (
        SELECT 1 FROM gateway_days AS g
        WHERE g.day = e.day AND g.provider = e.provider AND g.model = e.model
    )
)
SELECT
    day,
    source,
    provider,
    model,
    team,
    project_id,
    workload_class,
    requests,
    failed_requests,
    CASE WHEN requests > 0 AND failed_requests IS NOT NULL THEN failed_requests / requests END AS error_rate,
    unpriced_requests,
    price_mismatches,
    input_tokens,
    cached_input_tokens,
    output_tokens,
    from_nanos(cost_nanos) AS cost,
    CASE WHEN input_tokens + output_tokens > 0
         THEN from_nanos(cost_nanos * 1000000 // (input_tokens + output_tokens)) END AS cost_per_million_tokens,
    CASE WHEN input_tokens > 0 THEN from_nanos(cost_nanos * 1000000 // input_tokens) END AS cost_per_million_input_tokens,
    CASE WHEN output_tokens > 0 THEN from_nanos(cost_nanos * 1000000 // output_tokens) END AS cost_per_million_output_tokens,
    latency_p50_ms,
    latency_p95_ms,
    latency_p99_ms,
    time_to_first_token_p50_ms
FROM rows
ORDER BY day, source, provider, model, team, project_id, workload_class
