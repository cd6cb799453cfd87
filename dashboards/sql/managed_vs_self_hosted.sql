-- @query: Self-hosted inference against managed providers, per model, over the chosen UTC days:
--   the days self-hosted inference runs served the model and a provider prices it; the cheapest
--   provider's charge for the same token mix; utilisation now and at break-even ((cost - idle
--   cost) / the provider's charge; docs/managed-inference.md).
-- @param end_day: the range's last UTC day (DATE, inclusive)
-- @param start_day: the range's first UTC day (DATE, inclusive)
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
      AND day BETWEEN CAST($start_day AS DATE) AND CAST($end_day AS DATE)
    GROUP BY model, provider
),
cheapest AS (
    SELECT *, row_number() OVER (PARTITION BY model ORDER BY provider_cost, provider) AS rank_
    FROM compared
)
SELECT
    model,
    provider AS cheapest_provider,
    self_hosted_cost,
    CAST(self_hosted_tokens AS DOUBLE) AS self_hosted_tokens,
    CAST(CAST(self_hosted_cost * 1000000000 AS HUGEINT) * 1000000 // self_hosted_tokens AS DECIMAL(38, 0))
        * CAST(0.000000001 AS DECIMAL(10, 9)) AS self_hosted_usd_per_million_tokens,
    CAST(CAST(provider_cost * 1000000000 AS HUGEINT) * 1000000 // self_hosted_tokens AS DECIMAL(38, 0))
        * CAST(0.000000001 AS DECIMAL(10, 9)) AS provider_usd_per_million_tokens,
    CASE WHEN idle_known AND self_hosted_cost > 0
         THEN 1 - CAST(self_hosted_idle_cost AS DOUBLE) / CAST(self_hosted_cost AS DOUBLE) END AS utilisation,
    CASE WHEN idle_known AND provider_cost > 0
         THEN CAST(self_hosted_cost - self_hosted_idle_cost AS DOUBLE) / CAST(provider_cost AS DOUBLE) END AS break_even_utilisation
FROM cheapest
WHERE rank_ = 1 AND self_hosted_tokens > 0
ORDER BY self_hosted_cost DESC, model
