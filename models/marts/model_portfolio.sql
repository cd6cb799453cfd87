-- @table: One model's USD per million tokens on each family it ran on, side by side: per UTC month, model, workload class and family (accelerator type, or managed provider), for the models with tokens on more than one family that month (two accelerator types, or ours and a provider); the cheapest is picked within a workload class (a training token is not an inference token). Measured figures only: each side is what its own runs or requests cost, never an estimate of what they would have cost elsewhere. USD.
-- @grain month: month
-- @col month: First day of the UTC month (self-hosted runs by their start; managed traffic by its day).
-- @col model: Model (cost_per_run.model_name; the gateway's model group for managed rows).
-- @col workload_class: Workload class.
-- @col venue: self_hosted or managed.
-- @col family: Accelerator type (self-hosted) or provider (managed).
-- @col families: How many families the model ran on that month, any class (at least 2).
-- @col families_in_class: How many of them in this workload class (1 when the class ran on one family only).
-- @col runs: Self-hosted runs with tokens (null for managed rows).
-- @col requests: Managed requests (null for self-hosted rows).
-- @col tokens: Tokens read and written.
-- @col effective_cost: What they cost (USD): the runs' effective cost (cost_per_run, allocated idle included, unallocated idle not), or the requests' cost.
-- @col cost_per_million_tokens: effective_cost / (tokens / 1e6), USD, truncated to 9 places.
-- @col cheapest_cost_per_million_tokens: The lowest cost_per_million_tokens of the model's families that month in this class (USD).
-- @col times_cheapest: cost_per_million_tokens / cheapest_cost_per_million_tokens (1 on the cheapest family).
-- @col cheapest: True on the family (or families) with the lowest USD per million tokens in the class; null when the class ran on one family only (nothing to compare).
WITH self_hosted AS (
    SELECT
        CAST(date_trunc('month', started_at) AS DATE) AS month,
        model_name AS model,
        workload_class,
        'self_hosted' AS venue,
        accelerator_type AS family,
        count(*) AS runs,
        CAST(NULL AS HUGEINT) AS requests,
        CAST(sum(coalesce(tokens_in, 0) + coalesce(tokens_out, 0)) AS HUGEINT) AS tokens,
        sum(to_nanos(effective_cost)) AS cost_nanos
    FROM cost_per_run
    WHERE started_at IS NOT NULL AND model_name IS NOT NULL AND accelerator_type IS NOT NULL
      AND coalesce(tokens_in, 0) + coalesce(tokens_out, 0) > 0
    GROUP BY ALL
),
managed AS (
    SELECT
        CAST(date_trunc('month', day) AS DATE) AS month,
        model,
        workload_class,
        'managed' AS venue,
        provider AS family,
        CAST(NULL AS BIGINT) AS runs,
        sum(requests) AS requests,
        CAST(sum(input_tokens + output_tokens) AS HUGEINT) AS tokens,
        sum(to_nanos(cost)) AS cost_nanos
    FROM managed_inference_daily
    WHERE model IS NOT NULL AND provider IS NOT NULL AND cost IS NOT NULL
    GROUP BY ALL
    HAVING sum(input_tokens + output_tokens) > 0
),
sides AS (
    SELECT *, cost_nanos * 1000000 // tokens AS per_mtok_nanos FROM self_hosted
    UNION ALL
    SELECT *, cost_nanos * 1000000 // tokens AS per_mtok_nanos FROM managed
),
model_families AS (
    SELECT month, model, count(DISTINCT family) AS families
    FROM sides
    GROUP BY ALL
),
compared AS (
    SELECT
        s.*,
        f.families,
        count(*) OVER w AS families_in_class,
        min(s.per_mtok_nanos) OVER w AS cheapest_nanos
    FROM sides AS s
    JOIN model_families AS f ON f.month = s.month AND f.model = s.model
    WINDOW w AS (PARTITION BY s.month, s.model, s.workload_class)
)
SELECT
    month,
    model,
    workload_class,
    venue,
    family,
    families,
    families_in_class,
    runs,
    requests,
    tokens,
    from_nanos(cost_nanos) AS effective_cost,
    from_nanos(per_mtok_nanos) AS cost_per_million_tokens,
    from_nanos(cheapest_nanos) AS cheapest_cost_per_million_tokens,
    CASE WHEN cheapest_nanos > 0 THEN CAST(per_mtok_nanos AS DOUBLE) / CAST(cheapest_nanos AS DOUBLE) END AS times_cheapest,
    CASE WHEN families_in_class > 1 THEN per_mtok_nanos = cheapest_nanos END AS cheapest
FROM compared
WHERE families > 1
ORDER BY month, model, workload_class, per_mtok_nanos, venue DESC, family
