-- @query: One model that self-hosted inference runs served and a provider prices, over the UTC
--   days both did (within [$start_day, $end_day] where given): the self-hosted cost and tokens,
--   the cheapest provider's charge for the same token mix, both per million tokens (the rule of
--   cost_per_million_tokens: nano-dollars x 1e6 // tokens, truncated), the self-hosted
--   utilisation and the utilisation at which self-hosting breaks even ((cost - idle cost) / the
--   provider's charge; docs/managed-inference.md). Biggest self-hosted cost first. The one query
--   of these figures: the CLI and the tokens page run it.
-- @param start_day: the first UTC day (DATE, inclusive); null for no bound.
-- @param end_day: the last UTC day (DATE, inclusive); null for no bound.
WITH compared AS (
    SELECT
        model,
        provider,
        sum(self_hosted_cost) AS self_hosted_cost,
        sum(self_hosted_idle_cost) AS self_hosted_idle_cost,
        bool_and(self_hosted_idle_cost IS NOT NULL) AS idle_known,
        sum(self_hosted_tokens_in + self_hosted_tokens_out) AS self_hosted_tokens,
        sum(provider_cost_same_mix) AS provider_cost_same_mix
    FROM inference_comparison
    WHERE provider_cost_same_mix IS NOT NULL
      AND (CAST($start_day AS DATE) IS NULL OR day >= CAST($start_day AS DATE))
      AND (CAST($end_day AS DATE) IS NULL OR day <= CAST($end_day AS DATE))
    GROUP BY model, provider
),
cheapest AS (
    SELECT *, row_number() OVER (PARTITION BY model ORDER BY provider_cost_same_mix, provider) AS rank_
    FROM compared
)
SELECT
    model,
    provider AS cheapest_provider,
    self_hosted_cost,
    self_hosted_tokens,
    from_nanos(to_nanos(self_hosted_cost) * 1000000 // self_hosted_tokens) AS self_hosted_cost_per_million_tokens,
    provider_cost_same_mix,
    from_nanos(to_nanos(provider_cost_same_mix) * 1000000 // self_hosted_tokens) AS provider_cost_per_million_tokens,
    CASE WHEN idle_known AND self_hosted_cost > 0
         THEN 1 - CAST(self_hosted_idle_cost AS DOUBLE) / CAST(self_hosted_cost AS DOUBLE) END AS self_hosted_utilisation,
    CASE WHEN idle_known AND provider_cost_same_mix > 0
         THEN CAST(self_hosted_cost - self_hosted_idle_cost AS DOUBLE) / CAST(provider_cost_same_mix AS DOUBLE) END
        AS self_hosting_break_even_utilisation
FROM cheapest
WHERE rank_ = 1 AND self_hosted_tokens > 0
ORDER BY self_hosted_cost DESC, model
