-- @query: The bill (spend_daily: Google's export and every FOCUS provider's USD rows) over the
--   UTC usage days in [$start_day, $end_day] (null: no bound) of the chosen providers, label
--   teams and projects: one row ($group_by null; provider and month null; the row is there
--   without a bill), or one per provider, per calendar month of the usage day, or per both.
--   Billed cost, credits, effective cost (USD: exact sums, cast once to DECIMAL(38, 9)), the
--   commitment amortisation that separates them (FOCUS EffectiveCost less BilledCost: a savings
--   plan billed up front) and the first and last usage day. The one query of these figures: the
--   CLI, the Overview and the Chargeback page run it.
-- @param start_day: the first UTC usage day (DATE, inclusive); null for no bound.
-- @param end_day: the last UTC usage day (DATE, inclusive); null for no bound.
-- @param providers: the providers chosen (VARCHAR[]; empty: all).
-- @param teams: the label teams chosen (VARCHAR[]; empty: all).
-- @param projects: the projects chosen (VARCHAR[]; empty: all).
-- @param group_by: provider, month or provider_month; null for one row.
-- The groups are chosen in a subquery and grouped by outside it (portable SQL: bqemulator binds
-- `GROUP BY` of a CASE over a parameter as the columns inside it).
WITH chosen AS (
    SELECT
        CASE WHEN $group_by IN ('provider', 'provider_month') THEN s.provider END AS provider,
        CASE WHEN $group_by IN ('month', 'provider_month')
             THEN CAST(date_trunc('month', s.day) AS DATE) END AS month,
        s.day,
        s.billed_cost,
        s.credits_total,
        s.effective_cost
    FROM spend_daily AS s
    WHERE (CAST($start_day AS DATE) IS NULL OR s.day >= CAST($start_day AS DATE))
      AND (CAST($end_day AS DATE) IS NULL OR s.day <= CAST($end_day AS DATE))
      AND (array_length(CAST($providers AS VARCHAR[])) = 0 OR list_contains(CAST($providers AS VARCHAR[]), s.provider))
      AND (array_length(CAST($teams AS VARCHAR[])) = 0 OR list_contains(CAST($teams AS VARCHAR[]), s.team))
      AND (array_length(CAST($projects AS VARCHAR[])) = 0 OR list_contains(CAST($projects AS VARCHAR[]), s.project_id))
    UNION ALL
    -- The one row is there even when nothing matched (its sums 0, its days null).
    SELECT NULL, NULL, NULL, NULL, NULL, NULL
    WHERE $group_by IS NULL
)
SELECT
    provider,
    month,
    CAST(coalesce(sum(billed_cost), 0) AS DECIMAL(38, 9)) AS billed_cost,
    CAST(coalesce(sum(credits_total), 0) AS DECIMAL(38, 9)) AS credits,
    CAST(coalesce(sum(effective_cost), 0) AS DECIMAL(38, 9)) AS effective_cost,
    CAST(coalesce(sum(effective_cost), 0) AS DECIMAL(38, 9))
        - CAST(coalesce(sum(billed_cost), 0) AS DECIMAL(38, 9))
        - CAST(coalesce(sum(credits_total), 0) AS DECIMAL(38, 9)) AS commitment_amortisation,
    min(day) AS first_day,
    max(day) AS last_day
FROM chosen
GROUP BY provider, month
ORDER BY month, effective_cost DESC, provider
