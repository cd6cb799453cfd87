-- @query: One model that self-hosted inference runs served and a provider prices: over the days
--   both did (within the window, when given), the self-hosted cost and tokens, the cheapest
--   provider's charge for the same token mix, the utilisation now and at break-even
--   ((cost - idle cost) / the provider's charge), and what managed traffic of the model cost.
--   Biggest self-hosted cost first.
-- @param window_start: First UTC day (inclusive); null for no bound.
-- @param window_end: Last UTC day (inclusive); null for no bound.
WITH compared AS (
    SELECT
        model,
        provider,
        sum(self_hosted_cost) AS self_hosted_cost,
        sum(self_hosted_idle_cost) AS self_hosted_idle_cost,
        bool_and(self_hosted_idle_cost IS NOT NULL) AS idle_known,
        sum(self_hosted_tokens_in + self_hosted_tokens_out) AS self_hosted_tokens,
        sum(provider_cost_same_mix) AS provider_cost
    FROM inference_comparison
    WHERE provider_cost_same_mix IS NOT NULL
      AND (CAST($window_start AS DATE) IS NULL OR day >= CAST($window_start AS DATE))
      AND (CAST($window_end AS DATE) IS NULL OR day <= CAST($window_end AS DATE))
    GROUP BY model, provider
),
cheapest AS (
    SELECT *, row_number() OVER (PARTITION BY model ORDER BY provider_cost, provider) AS rank_
    FROM compared
),
managed AS (
    SELECT model, sum(cost) AS managed_cost, sum(input_tokens + output_tokens) AS managed_tokens
    FROM managed_inference_daily
    WHERE (CAST($window_start AS DATE) IS NULL OR day >= CAST($window_start AS DATE))
      AND (CAST($window_end AS DATE) IS NULL OR day <= CAST($window_end AS DATE))
    GROUP BY model
)
SELECT
    c.model,
    c.provider AS cheapest_provider,
    c.self_hosted_cost,
    c.self_hosted_tokens,
    c.self_hosted_cost * 1000000 / c.self_hosted_tokens AS self_hosted_per_mtok,
    c.provider_cost,
    c.provider_cost * 1000000 / c.self_hosted_tokens AS provider_per_mtok,
    CASE WHEN c.idle_known AND c.self_hosted_cost > 0
         THEN 1 - CAST(c.self_hosted_idle_cost AS DOUBLE) / CAST(c.self_hosted_cost AS DOUBLE) END AS utilisation,
    CASE WHEN c.idle_known AND c.provider_cost > 0
         THEN CAST(c.self_hosted_cost - c.self_hosted_idle_cost AS DOUBLE) / CAST(c.provider_cost AS DOUBLE) END AS break_even_utilisation,
    m.managed_cost,
    m.managed_tokens
FROM cheapest AS c
LEFT JOIN managed AS m ON m.model = c.model
WHERE c.rank_ = 1 AND c.self_hosted_tokens > 0
ORDER BY c.self_hosted_cost DESC, c.model
