-- @table: One managed inference request (from the gateway's logs) with what it cost and how that cost was decided: the gateway's own figure when it priced the request, else the dated price book; where both priced it, how far apart they are. USD.
-- @grain day: day
-- @check managed_requests_priced (warn): Every managed request has a cost (from the gateway or the price book).
-- @check managed_prices_agree (warn): Where the gateway and the price book both priced a request, they agree (1%).
-- @col request_id: The gateway's request id.
-- @col day: UTC day the request started.
-- @col started_at: When it reached the gateway (UTC).
-- @col provider: Provider it was routed to.
-- @col model: Model the caller asked for.
-- @col team: Team of the calling key.
-- @col workload_class: Workload class (request tag; online_inference when untagged).
-- @col status: success or failure.
-- @col cache_hit: Served from the gateway's response cache (the provider was not called; costs nothing).
-- @col prompt_tokens: Input tokens, cached ones included.
-- @col cached_tokens: Input tokens served from the provider's prompt cache.
-- @col completion_tokens: Output tokens.
-- @col latency_ms: ended_at - started_at, milliseconds; null when the end was not logged.
-- @col time_to_first_token_ms: first_token_at - started_at, milliseconds; null when not logged.
-- @col gateway_cost: What the gateway computed (USD); null when it logged no price (spend null, or 0 for a request with tokens).
-- @col price_book_cost: The price book's figure (USD): floor(((prompt - cached) x input + cached x cached input + completion x output) per Mtok x 1e9 / 1e6) nano-USD + per request; null without a price for the provider, model and day.
-- @col cost: What the request cost (USD): 0 for a cache hit; else the gateway's figure; else 0 for a failed request; else the price book's; null when nobody priced it (cost_source unpriced).
-- @col cost_source: gateway_cache, gateway, failed, price_book or unpriced.
-- @col price_difference: gateway_cost - price_book_cost (USD) where both priced it.
-- @col price_mismatch: True where both priced it and they differ by more than 1% of the price book's figure and more than 0.000001 USD.
-- @col cost_per_million_tokens: cost / ((prompt + completion) / 1e6), USD, truncated to 9 places; null without tokens or cost.
WITH prices AS (
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
requests AS (
    SELECT
        r.*,
        CAST(r.started_at AS DATE) AS day,
        r.prompt_tokens + r.completion_tokens AS tokens,
        CASE WHEN r.spend IS NOT NULL AND (r.spend > 0 OR r.prompt_tokens + r.completion_tokens = 0)
             THEN to_nanos(r.spend) END AS gateway_nanos
    FROM managed_requests AS r
),
booked AS (
    SELECT
        r.*,
        CASE
            WHEN p.input_per_mtok IS NOT NULL THEN
                ((r.prompt_tokens - r.cached_tokens) * to_nanos(p.input_per_mtok)
                  + r.cached_tokens * to_nanos(p.cached_per_mtok)
                  + r.completion_tokens * to_nanos(p.output_per_mtok)) // 1000000
                + coalesce(to_nanos(p.per_request), 0)
            WHEN p.per_request IS NOT NULL THEN to_nanos(p.per_request)
        END AS book_nanos
    FROM requests AS r
    LEFT JOIN prices AS p
        ON p.provider = r.provider AND p.model = r.model
        AND r.day >= p.valid_from AND (p.valid_until IS NULL OR r.day < p.valid_until)
),
decided AS (
    SELECT
        *,
        CASE
            WHEN cache_hit THEN 'gateway_cache'
            WHEN gateway_nanos IS NOT NULL THEN 'gateway'
            WHEN status = 'failure' THEN 'failed'
            WHEN book_nanos IS NOT NULL THEN 'price_book'
            ELSE 'unpriced'
        END AS cost_source
    FROM booked
),
costed AS (
    SELECT
        *,
        CASE cost_source
            WHEN 'gateway_cache' THEN 0
            WHEN 'gateway' THEN gateway_nanos
            WHEN 'failed' THEN 0
            WHEN 'price_book' THEN book_nanos
        END AS cost_nanos
    FROM decided
)
SELECT
    request_id,
    day,
    started_at,
    provider,
    model,
    team,
    workload_class,
    status,
    cache_hit,
    prompt_tokens,
    cached_tokens,
    completion_tokens,
    CAST(epoch_ms(ended_at) - epoch_ms(started_at) AS BIGINT) AS latency_ms,
    CAST(epoch_ms(first_token_at) - epoch_ms(started_at) AS BIGINT) AS time_to_first_token_ms,
    from_nanos(gateway_nanos) AS gateway_cost,
    from_nanos(book_nanos) AS price_book_cost,
    from_nanos(cost_nanos) AS cost,
    cost_source,
    from_nanos(gateway_nanos - book_nanos) AS price_difference,
    coalesce(
        abs(gateway_nanos - book_nanos) * 100 > book_nanos AND abs(gateway_nanos - book_nanos) > 1000,
        false
    ) AS price_mismatch,
    CASE WHEN tokens > 0 THEN from_nanos(cost_nanos * 1000000 // tokens) END AS cost_per_million_tokens
FROM costed
ORDER BY started_at, request_id
