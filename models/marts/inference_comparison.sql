-- @table: Self-hosted against managed inference, per UTC day, model and provider: what the day's self-hosted inference runs (online and batch) cost per million tokens, with their idle share; what each provider would charge for the same token mix at its price-book price; what the provider's managed traffic cost; and the utilisation at which self-hosting breaks even. USD. See docs/managed-inference.md for the formula.
-- @grain day: day
-- @col day: UTC day (self-hosted runs by the day they started; managed traffic by its day).
-- @col model: Model.
-- @col provider: Provider priced or used for this model (null when no provider has a price or traffic for it that day).
-- @col self_hosted_runs: Online and batch inference runs of the model that started that day (with tokens).
-- @col self_hosted_tokens_in: Their tokens read.
-- @col self_hosted_tokens_out: Their tokens written.
-- @col self_hosted_cost: Their effective cost (USD, cost_per_run).
-- @col self_hosted_idle_cost: The part of it spent while their accelerators were held but not busy (USD, allocated idle); null when some run had no telemetry.
-- @col self_hosted_idle_share: self_hosted_idle_cost / self_hosted_cost.
-- @col self_hosted_utilisation: 1 - self_hosted_idle_share: the busy share of what they paid for.
-- @col self_hosted_cost_per_million_tokens: self_hosted_cost / ((tokens in + out) / 1e6), USD, truncated to 9 places.
-- @col provider_input_per_mtok: The provider's price per million input tokens that day (price book).
-- @col provider_output_per_mtok: The provider's price per million output tokens that day (price book).
-- @col provider_cost_same_mix: What the provider would charge for the self-hosted tokens: floor((tokens in x input + tokens out x output) per Mtok x 1e9 / 1e6) nano-USD (USD).
-- @col provider_cost_per_million_tokens: provider_cost_same_mix / ((tokens in + out) / 1e6), USD.
-- @col break_even_utilisation: The utilisation at which self-hosting costs what the provider charges for the same tokens: (self_hosted_cost - self_hosted_idle_cost) / provider_cost_same_mix. Above it self-hosting is cheaper; above 1, it cannot win at any utilisation.
-- @col cheaper: self_hosted or managed (for the same token mix at today's utilisation), equal, or null when either side is missing.
-- @col managed_requests: The provider's managed requests of the model that day.
-- @col managed_tokens: Their input + output tokens.
-- @col managed_cost: What they cost (USD, managed_inference_daily).
-- @col managed_cost_per_million_tokens: managed_cost / (managed_tokens / 1e6), USD.
WITH self_hosted AS (
    SELECT
        CAST(started_at AS DATE) AS day,
        model_name AS model,
        count(*) AS runs,
        sum(coalesce(tokens_in, 0)) AS tokens_in,
        sum(coalesce(tokens_out, 0)) AS tokens_out,
        sum(to_nanos(effective_cost)) AS cost_nanos,
        CASE WHEN bool_and(allocated_idle_cost IS NOT NULL)
             THEN sum(to_nanos(allocated_idle_cost)) END AS idle_nanos
    FROM cost_per_run
    WHERE workload_class IN ('online_inference', 'batch_inference')
      AND started_at IS NOT NULL AND model_name IS NOT NULL
      AND coalesce(tokens_in, 0) + coalesce(tokens_out, 0) > 0
    GROUP BY ALL
),
managed AS (
    SELECT
        day,
        model,
        provider,
        sum(requests) AS requests,
        sum(input_tokens + output_tokens) AS tokens,
        sum(to_nanos(cost)) AS cost_nanos
    FROM managed_inference_daily
    WHERE model IS NOT NULL
    GROUP BY ALL
),
prices AS (
    SELECT
        provider,
        model,
        valid_from,
        lead(valid_from) OVER (PARTITION BY provider, model ORDER BY valid_from) AS valid_until,
        input_per_mtok,
        output_per_mtok
    FROM managed_prices
    WHERE input_per_mtok IS NOT NULL
),
priced AS (
    SELECT s.day, s.model, p.provider, p.input_per_mtok, p.output_per_mtok
    FROM self_hosted AS s
    JOIN prices AS p
        ON p.model = s.model AND s.day >= p.valid_from AND (p.valid_until IS NULL OR s.day < p.valid_until)
),
pairs AS (
    SELECT day, model, provider FROM managed
    UNION
    SELECT day, model, provider FROM priced
    UNION
    SELECT s.day, s.model, CAST(NULL AS VARCHAR)
    FROM self_hosted AS s
    WHERE NOT EXISTS (SELECT 1 FROM managed AS m WHERE m.day = s.day AND m.model = s.model)
      AND NOT EXISTS (SELECT 1 FROM priced AS q WHERE q.day = s.day AND q.model = s.model)
),
joined AS (
    SELECT
        k.day,
        k.model,
        k.provider,
        s.runs,
        s.tokens_in,
        s.tokens_out,
        s.cost_nanos,
        s.idle_nanos,
        q.input_per_mtok,
        q.output_per_mtok,
        (s.tokens_in * to_nanos(q.input_per_mtok) + s.tokens_out * to_nanos(q.output_per_mtok)) // 1000000 AS mix_nanos,
        m.requests,
        m.tokens AS managed_tokens,
        m.cost_nanos AS managed_nanos
    FROM pairs AS k
    LEFT JOIN self_hosted AS s ON s.day = k.day AND s.model = k.model
    LEFT JOIN priced AS q ON q.day = k.day AND q.model = k.model AND q.provider = k.provider
    LEFT JOIN managed AS m ON m.day = k.day AND m.model = k.model AND m.provider = k.provider
)
SELECT
    day,
    model,
    provider,
    runs AS self_hosted_runs,
    tokens_in AS self_hosted_tokens_in,
    tokens_out AS self_hosted_tokens_out,
    from_nanos(cost_nanos) AS self_hosted_cost,
    from_nanos(idle_nanos) AS self_hosted_idle_cost,
    CASE WHEN cost_nanos > 0 THEN CAST(idle_nanos AS DOUBLE) / CAST(cost_nanos AS DOUBLE) END AS self_hosted_idle_share,
    CASE WHEN cost_nanos > 0 THEN 1 - CAST(idle_nanos AS DOUBLE) / CAST(cost_nanos AS DOUBLE) END AS self_hosted_utilisation,
    CASE WHEN tokens_in + tokens_out > 0
         THEN from_nanos(cost_nanos * 1000000 // (tokens_in + tokens_out)) END AS self_hosted_cost_per_million_tokens,
    input_per_mtok AS provider_input_per_mtok,
    output_per_mtok AS provider_output_per_mtok,
    from_nanos(mix_nanos) AS provider_cost_same_mix,
    CASE WHEN tokens_in + tokens_out > 0
         THEN from_nanos(mix_nanos * 1000000 // (tokens_in + tokens_out)) END AS provider_cost_per_million_tokens,
    CASE WHEN mix_nanos > 0 THEN CAST(cost_nanos - idle_nanos AS DOUBLE) / CAST(mix_nanos AS DOUBLE) END AS break_even_utilisation,
    CASE
        WHEN cost_nanos IS NULL OR mix_nanos IS NULL THEN NULL
        WHEN cost_nanos < mix_nanos THEN 'self_hosted'
        WHEN cost_nanos > mix_nanos THEN 'managed'
        ELSE 'equal'
    END AS cheaper,
    requests AS managed_requests,
    managed_tokens,
    from_nanos(managed_nanos) AS managed_cost,
    CASE WHEN managed_tokens > 0
         THEN from_nanos(managed_nanos * 1000000 // managed_tokens) END AS managed_cost_per_million_tokens
FROM joined
ORDER BY day, model, provider NULLS LAST
